#!/usr/bin/env python3
"""Bug: retry_budget_exhausted.details.attempts is the caller's attempt number of the call that hit the budget,
not the number of executions started.

Where it ships: code that fills "attempts" from the request's attempt counter it already has at hand.
docs/errors.md, retry_budget_exhausted: "**Details:** `attempts`, the number of executions started" (default 5
executions, while the call that hits the budget is the caller's sixth attempt).

Expected checks: expectations, where the budget scenario pins `details.attempts` (else missed). Written blind in
round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    """The held (key, version) to execute under, or an envelope to answer now."""
    deadline_ms = cp.now_ms() + ctx.remaining_ms()
    lease = deadline_ms + cp.LEASE_MARGIN_MS
    for _ in range(cp.CLAIM_ROUNDS):
        with self.lock:
            record = self.records.get(key)
            if record is None:
                self.records[key] = cp.Record(fingerprint, lease, deadline_ms)
                return (key, ("IN_PROGRESS", 1))
            snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                        record.deadline, record.outcome)
        stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot
        if stored_fingerprint != fingerprint:
            return cp.fail(cp.Refusal("idempotency_conflict",
                                      "this business request was already made with different arguments",
                                      reason="arguments_changed"), meta)
        now = cp.now_ms()
        if state == "IN_PROGRESS" and record_lease > now:
            return cp.fail(cp.in_progress(record_lease - now), meta)
        if state == "IN_PROGRESS":
            self.compare_and_set(key, (state, epoch), "UNKNOWN", outcome)
        elif state in ("SUCCEEDED", "FAILED_FINAL"):
            return cp.replay(outcome, meta)
        elif state == "FAILED_RETRYABLE" and attempts >= cp.MAX_ATTEMPTS:
            # BUG: attempts is the caller's attempt number of this call, not the executions started.
            envelope = cp.fail(cp.Refusal("retry_budget_exhausted",
                                          "this business request failed too often; retries stop here",
                                          attempts=meta["attempt"]), meta)
            if self.compare_and_set(key, (state, epoch), "FAILED_FINAL", envelope):
                return envelope
        elif state == "FAILED_RETRYABLE":
            if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                    attempts=attempts + 1, lease=lease, deadline=deadline_ms):
                return (key, ("IN_PROGRESS", epoch + 1))
        else:  # UNKNOWN: find the truth before anything is sent again
            answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
            if answer is not None:
                return answer
    return cp.fail(cp.in_progress(0), meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
