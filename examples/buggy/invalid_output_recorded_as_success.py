#!/usr/bin/env python3
"""Bug: when the tool's output breaks its output schema, the live answer is output_invalid, but the idempotency
record stores the tool's successful envelope (built before output validation), so a retry of the same business
request replays ok with the invalid result.

Where it ships: executors that record "what the tool returned" in the idempotency layer and apply output validation
only on the response path. docs/errors.md, output_invalid: "The result is withheld entirely, never partly returned.
The side effect may well have happened, so the record is final and later attempts replay this error."

Expected checks: expectations / output-invalid-withheld, where a bad_output step is followed by a retry (else
missed). Written blind in round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                meta):
    """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
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
    # BUG: the record gets what the tool returned; output validation below changes only the answer.
    recorded_state = state
    recorded = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
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
        self.compare_and_set(held[0], held[1], recorded_state, recorded)  # BUG: not the envelope answered
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
