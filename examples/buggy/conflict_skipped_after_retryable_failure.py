#!/usr/bin/env python3
"""Bug: a FAILED_RETRYABLE record is retaken without comparing fingerprints, adopting the new call's arguments.

Where it ships: idempotency middlewares that release (delete or unlock) the key on a retryable error so the client
can retry, and lose the stored request hash with it (a Redis `SET NX` lock released in `finally` on failure).
docs/errors.md, idempotency_conflict: "the caller reused a business request id ... for a call whose canonical
arguments differ from the first call's. Nothing is executed; the stored record is left as it was";
docs/protocol.md: "the same business request with other arguments is `idempotency_conflict`".

Expected checks: conflict-on-changed-arguments and expectations, on a call with other arguments after a 5xx or a
429. Written blind in round 4 (examples/buggy/BLIND4.md).
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
        # BUG: a retryable failure applied nothing, so its record is "free": no fingerprint comparison for it.
        if stored_fingerprint != fingerprint and state != "FAILED_RETRYABLE":
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
            # BUG: the retake takes the record over with the new call's fingerprint.
            if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                    attempts=attempts + 1, lease=lease, deadline=deadline_ms,
                                    fingerprint=fingerprint):
                return (key, ("IN_PROGRESS", epoch + 1))
        else:  # UNKNOWN: find the truth before anything is sent again
            answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
            if answer is not None:
                return answer
    return cp.fail(cp.in_progress(0), meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
