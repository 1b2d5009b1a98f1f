#!/usr/bin/env python3
"""Bug: `output_invalid` is recorded as a retryable failure, so a retry executes the operation again.

Where it ships: an executor whose store maps "the call failed" to FAILED_RETRYABLE and "the call was refused
before anything happened" to FAILED_FINAL, and files a broken output under the first ("the tool misbehaved,
maybe it works next time"). docs/errors.md output_invalid: "The side effect may well have happened, so the record
is final and later attempts replay this error."

Expected checks: single-effect and expectations, in a scenario that retries after a `bad_output` answer of a
side-effecting tool (the retry must replay output_invalid and send nothing).
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
            # BUG: a broken output is filed as a retryable failure.
            state, result = "FAILED_RETRYABLE", cp.Refusal("output_invalid", "the tool's output breaks its contract",
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
