#!/usr/bin/env python3
"""Correct, written another way: a call of a new business operation whose deadline has already passed when it
reaches the idempotency stage is refused there, `timeout_not_started`, without creating a record (the example
creates the record first and refuses a moment later, when the tool would be called, leaving a FAILED_RETRYABLE
record and `meta.idempotency_key` behind). A call that finds a record is handled as before (replayed,
reconciled, conflict).

Where it ships: executors that check the deadline once more before touching the store, so that a call that
cannot start costs no write.

Permitted by docs/errors.md, timeout_not_started: "the call's deadline ... passed before the side effect could
start: the budget was spent before the resource could be looked up for authorization (then no idempotency
record exists yet), the lookup outlived it, the budget was spent by the time the tool would be called", and by
docs/protocol.md "5. **One deadline per call**: refuse to start after it (`timeout_not_started`)". The envelope
schema: `meta.idempotency_key` is "Present only for tools with side effects, once the call got as far as the
idempotency stage" (optional). Nothing was executed either way, and "Input errors never create an idempotency
record" shows a refusal may leave none.

Expected: passes every check under --profile all. A false-positive probe for conflict-on-changed-arguments and
retry_budget_exhausted counting (a refused start is not an execution).
"""

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    with self.lock:
        fresh = key not in self.records
    if fresh and ctx.remaining_ms() <= 0:
        meta.pop("idempotency_key", None)
        return cp.fail(cp.Refusal("timeout_not_started", "the deadline passed before the request was sent",
                                  reason="deadline_elapsed"), meta)
    return ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
