#!/usr/bin/env python3
"""Bug: the task poll's kept final answer is looked up before authorization, keyed by the handle alone.

Where it ships: a "fast path" for polling. Task handles look like opaque ids, so a cache in front of the
authorization middleware, keyed by the id, seems harmless; MCP task stores keyed by taskId ship this way. Once
one tenant's export completed, anyone who polls its handle (another tenant, a caller without `exports:read`)
gets the kept result (account id, record count, download URL) without any check. conformance-app.md (Tasks):
another tenant's handle and an unknown one get the same `forbidden`.

Expected check: task-refusal-uniform (a success for another tenant's handle) or tenant-isolation, in a scenario
that polls a completed handle as another tenant after its owner has polled it to completion.
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    final_key = None
    if tool.entry.get("task") == "poll":
        # BUG: consulted before authorize(), and keyed by the handle only (no tenant).
        final_key = arguments.get("task_id")
        with self.lock:
            kept = self.task_finals.get(final_key)
        if kept is not None:
            return cp.succeed(kept, meta)
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
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
                                                       path=violations[0]["path"], keyword=violations[0]["keyword"])
    if final_key is not None and not isinstance(result, cp.Refusal) and \
            result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
