#!/usr/bin/env python3
"""Bug: a task's first final poll answer is kept in a cache whose entries expire 1 s after they were stored.

Where it ships: TTL caches (cachetools.TTLCache, nginx micro-caching of polling endpoints) used where a permanent
record was needed; after expiry the poll reads the job again and answers a freshly signed download_url.
docs/protocol.md, Task tools: "the first final poll answer of a handle is kept and answered to every later poll";
docs/conformance-app.md: "an executor keeps the **first final answer** ... and answers it to every later poll of
that handle".

Expected checks: task-final-stable, when two polls of a finished task are more than 1 s apart. Written blind in
round 4 (examples/buggy/BLIND4.md).
"""

import time

from correct import cp, serve

FINAL_TTL_S = 1.0


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    if tool.entry.get("task") == "poll":
        final_key = (auth["tenant_id"], arguments.get("task_id"))
        with self.lock:
            entry = self.task_finals.get(final_key)
            # BUG: the kept final answer expires FINAL_TTL_S after it was stored.
            if entry is not None and time.monotonic() - entry[1] >= FINAL_TTL_S:
                del self.task_finals[final_key]
                entry = None
        if entry is not None:
            return cp.succeed(entry[0], meta)
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
    if final_key is not None and not isinstance(result, cp.Refusal) and \
            result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            # kept with the time it was stored, for the expiry above
            result = self.task_finals.setdefault(final_key, (result, time.monotonic()))[0]
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
