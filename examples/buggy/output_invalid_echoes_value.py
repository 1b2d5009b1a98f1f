#!/usr/bin/env python3
"""Bug: `output_invalid` carries the validator's own message, which quotes the offending output value.

Where it ships: `raise ToolError(f"output failed validation: {e.message}")` with jsonschema (or ajv's
`errorsText()`, pydantic's `str(ValidationError)`, all of which print the input value). The value is the
downstream's broken output, withheld on purpose; the message hands it (or a piece of it) to the model anyway.
docs/errors.md output_invalid: "The result is withheld entirely, never partly returned"; details are "`path` and
`keyword` of the first violation (never the offending value)"; messages never carry a downstream's raw answer.

Expected check: output-invalid-withheld (if it looks beyond the missing `result`) or no-secret-leak (if the
`bad_output` fault plants a marker), in any scenario with a `bad_output` fault.
"""

from correct import cp, serve


def _first_message(validator, value):
    errors = sorted(validator.iter_errors(value),
                    key=lambda error: (list(error.absolute_path), error.validator != "type"))
    return errors[0].message if errors else ""


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
            # BUG: the validator's message (which quotes the offending value) goes into the envelope.
            state, result = "FAILED_FINAL", cp.Refusal(
                "output_invalid", "the tool's output breaks its contract: " + _first_message(tool.output, result),
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
