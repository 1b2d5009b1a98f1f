#!/usr/bin/env python3
"""Bug: for tools with side effects, a settled idempotency record (SUCCEEDED / FAILED_FINAL, same arguments) is
replayed before the call is authorized, so a retry whose caller's identity has expired, who lost the scope or whose
approval expired gets the stored outcome instead of unauthorized / forbidden / approval_required.

Where it ships: idempotency middleware mounted in front of the auth middleware, or a latency "fast path" for
replays. docs/protocol.md, "What the executor must do": "2. Authorize from `auth` only: identity valid and unexpired
(`unauthorized`), tool allowed, scopes held, approval ..." before "3. Claim the idempotency key ... a finished one
is replayed"; docs/errors.md, unauthorized: "Checked before anything else about authorization."

Expected checks: expectations, on a retry with changed auth after a success; approval-bound on a delete_account
retry with an expired approval (likely missed). Written blind in round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                meta):
    """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
    if tool.side_effect:
        # BUG: a fast path before authorization: a settled operation is answered from its record ("a replay
        # changes nothing downstream"), whoever asks with whatever auth.
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        with self.lock:
            record = self.records.get(key)
            settled = record is not None and record.state in ("SUCCEEDED", "FAILED_FINAL") \
                and record.fingerprint == arguments_hash
            stored = record.outcome if settled else None
        if settled:
            meta["idempotency_key"] = key
            return cp.replay(stored, meta)
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    if tool.entry.get("task") == "poll":
        final_key = (auth["tenant_id"], arguments.get("task_id"))
        with self.lock:
            kept = self.task_finals.get(final_key)
        if kept is not None:
            return cp.succeed(kept, meta)
    held = None
    if tool.side_effect:
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        meta["idempotency_key"] = key
        claimed = self.claim(key, arguments_hash, tool, arguments, ctx, meta)
        if isinstance(claimed, dict):
            return claimed
        held = claimed
    try:
        self.check_business_rules(tool, arguments, resource)
        state, result = self.call_tool(tool, arguments, ctx, held)
    except cp.Refusal as refusal:
        state, result = "FAILED_FINAL", refusal
    if not isinstance(result, cp.Refusal):
        violations = cp._violations(tool.output, result)
        if violations:
            state, result = "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's output breaks its contract",
                                                       path=violations[0]["path"],
                                                       keyword=violations[0]["keyword"])
    if final_key is not None and not isinstance(result, cp.Refusal) and result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
