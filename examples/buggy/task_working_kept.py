#!/usr/bin/env python3
"""Bug: a task poll keeps its first answer whatever the status, `working` included, so the task never finishes.

Where it ships: "the first answer of a poll is kept and answered to every later poll" implemented with a truthy
test on the status (`if result.get("status")`) or a cache that stores every successful read of a handle, instead
of only a final one. docs/conformance-app.md (Tasks): an executor keeps the *first final answer*; answers while
the task is working are not final.

Expected check: expectations (a poll after the job's end that must answer `completed`), in any task scenario
that polls while the job works and again after it ended.
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
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
    # BUG: any status is kept, `working` too, not only a final one.
    if final_key is not None and not isinstance(result, cp.Refusal) and result.get("status"):
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
