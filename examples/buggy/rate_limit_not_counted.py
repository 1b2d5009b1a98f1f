#!/usr/bin/env python3
"""Bug: when a FAILED_RETRYABLE record is taken back, the attempt is not counted if the stored failure was
rate_limited ("a 429 is back-pressure, not a failure"), so an operation that keeps being throttled is executed
without bound and never answers retry_budget_exhausted.

Where it ships: retry policies that exempt throttling from the retry budget (a common SDK habit), applied to the
idempotency record's execution count. docs/conformance-app.md: "at most 5 executions of one business request
(`retry_budget_exhausted` on the sixth attempt)"; docs/errors.md, retry_budget_exhausted: "`attempts`, the number
of executions started".

Expected checks: expectations, only if a scenario drives the retry budget with 429s (likely missed). Written blind
in round 5 (examples/buggy/BLIND5.md).
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
            envelope = cp.fail(cp.Refusal("retry_budget_exhausted",
                                          "this business request failed too often; retries stop here",
                                          attempts=attempts), meta)
            if self.compare_and_set(key, (state, epoch), "FAILED_FINAL", envelope):
                return envelope
        elif state == "FAILED_RETRYABLE":
            # BUG: a 429 is taken for back-pressure, not a failure: a retake after one does not count an attempt.
            throttled = outcome is not None and not outcome["ok"] and outcome["error"]["code"] == "rate_limited"
            if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                    attempts=attempts if throttled else attempts + 1, lease=lease,
                                    deadline=deadline_ms):
                return (key, ("IN_PROGRESS", epoch + 1))
        else:  # UNKNOWN: find the truth before anything is sent again
            answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
            if answer is not None:
                return answer
    return cp.fail(cp.in_progress(0), meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
