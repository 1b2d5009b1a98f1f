#!/usr/bin/env python3
"""Bug: business rules run before the idempotency claim, so a rejection is never recorded.

Where it ships: "validate cheaply first, touch the store last": the amount check sits with the other
validation, before the key is derived and claimed. A `business_rejected` then leaves no record: reusing its
business request id with changed arguments executes as a new operation instead of answering
`idempotency_conflict`, and a retry of the same rejected call is judged again instead of replayed
(`meta.replayed` false). docs/errors.md business_rejected: "The rejection is stored for its business request: a
changed request is a new operation and needs a new business request id (reusing the old one answers
`idempotency_conflict`)"; docs/protocol.md orders the claim (3) before the business rules (4).

Expected check: conflict-on-changed-arguments, or expectations where a scenario pins the conflict after a
rejection. Note that checks.md says the conflict check judges only calls whose earlier call carried
`meta.idempotency_key`, which this bug never gives on the rejection.
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
    # BUG: the business rules run here, before the claim; their refusal is never recorded.
    self.check_business_rules(tool, arguments, resource)
    held = None
    if tool.side_effect:
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        meta["idempotency_key"] = key
        claimed = self.claim(key, arguments_hash, tool, arguments, ctx, meta)
        if isinstance(claimed, dict):
            return claimed
        held = claimed
    try:
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
