"""node_claim_parallel_with_authorize: authorization and the idempotency claim run together (Promise.all).

Behaviour: to save a round trip, the pipeline starts the claim of a side-effecting call's key at the same time as
authorization (the ownership lookup) and awaits both with Promise.all. A call that authorization refuses, or whose
lookup fails, has then already created an IN_PROGRESS record with its fingerprint; nothing settles it, so until its
lease runs out the business request answers operation_in_progress, and the corrected call with the same business
request id answers idempotency_conflict instead of running. (A claim that finds a finished record also replays
before authorization has answered, but the refusal still wins, as Promise.all rejects.)

Where it ships: Node handlers "optimised" with Promise.all over steps that must run one after the other.

Doc sentence it breaks: docs/protocol.md "What the executor must do": 2. Authorize, then 3. Claim the idempotency
key; docs/errors.md timeout_not_started / dependency_unavailable for authorization ("then no idempotency record
exists yet"); forbidden/unauthorized refusals have effect `none`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = """    const resource = await this.authorize(tool, value, hash, auth, ctx);
    let finalKey = null;
    if (tool.entry.task === 'poll') {
      finalKey = JSON.stringify([auth.tenant_id, value.task_id]);
      const kept = this.taskFinals.get(finalKey);
      if (kept !== undefined) return succeed(kept, meta);
    }
    let held = null;
    if (tool.sideEffect) {
      const key = this.deriveKey(auth, tool.name, hash, businessRequestId);
      meta.idempotency_key = key;
      const claimed = await this.claim(key, hash.toString('hex'), tool, value, ctx, meta);
      if (!Array.isArray(claimed)) return claimed;
      held = claimed;
    }
"""
NEW = """    let claiming = null;
    if (tool.sideEffect) {
      const key = this.deriveKey(auth, tool.name, hash, businessRequestId);
      meta.idempotency_key = key;
      claiming = this.claim(key, hash.toString('hex'), tool, value, ctx, meta);
    }
    // BUG: authorization and the claim run in parallel; a refused call has already claimed the key
    const [resource, claimed] = await Promise.all([this.authorize(tool, value, hash, auth, ctx), claiming]);
    let finalKey = null;
    if (tool.entry.task === 'poll') {
      finalKey = JSON.stringify([auth.tenant_id, value.task_id]);
      const kept = this.taskFinals.get(finalKey);
      if (kept !== undefined) return succeed(kept, meta);
    }
    let held = null;
    if (claimed !== null) {
      if (!Array.isArray(claimed)) return claimed;
      held = claimed;
    }
"""

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
