#!/usr/bin/env python3
"""Bug: a task poll keeps the first final answer of a handle before it validates it against the output schema, so
a final answer that breaks the schema is refused once (output_invalid) and then answered, as kept, to every later
poll of the handle as if it were valid.

Where it ships: a result cache filled where the answer arrives (the HTTP layer, a response hook) rather than where
it has been checked. docs/conformance-app.md: "an executor keeps the first final answer (validated once against
the output schema)"; docs/protocol.md: a 2xx JSON body is "the body projected onto the output schema's
properties, validated".

Expected checks: output-invalid-withheld on tasks/broken_final_answer_never_passed_on. Written blind in round 5
(examples/buggy/BLIND5.md), missed then; rewritten from its description when the check began to judge every ok
result.
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
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
    # BUG: the final answer is kept as it arrived, before the output schema has looked at it.
    if final_key is not None and not isinstance(result, cp.Refusal) and result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    if not isinstance(result, cp.Refusal):
        violations = cp._violations(tool.output, result)
        if violations:
            state, result = "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's output breaks its contract",
                                                       path=violations[0]["path"], keyword=violations[0]["keyword"])
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
