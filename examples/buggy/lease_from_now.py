#!/usr/bin/env python3
"""Bug: the idempotency lease runs from the claim (now + 2 s), not from the call's deadline (deadline + 2 s).

Where it ships: a lease taken as a fixed "heartbeat" TTL (`SET key NX PX 2000`, a 2 s lock) while the call
itself may run for its whole budget. A duplicate that comes after 2 s of a slower call finds the lease over,
takes the record for UNKNOWN and reconciles while the first attempt still runs; the first attempt's outcome is
then never recorded (its compare-and-set finds the record moved). docs/protocol.md: "An IN_PROGRESS record whose
lease (deadline + 2 s) ran out is unknown", the lease covering the holder's whole deadline.

Expected checks: expectations or single-effect, in a scenario where a duplicate or retry arrives more than 2 s
into a call that is still running (likely missed: the reconciliation it falls into is itself correct).
"""

from correct import cp, serve


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    """The held (key, version) to execute under, or an envelope to answer now."""
    deadline_ms = cp.now_ms() + ctx.remaining_ms()
    # BUG: the lease runs from the claim, not from the call's deadline.
    lease = cp.now_ms() + cp.LEASE_MARGIN_MS
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
