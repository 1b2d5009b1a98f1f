"""Buggy executor: the retry budget is spent by every claim of an existing record.

Changed place: `Executor.claim` (examples/python/callproof_executor.py). The attempts counter is incremented at
the top of every claim of an existing record (an INCR before the state is read), so a duplicate answered
`operation_in_progress`, a replay and a reconciliation poll spend the budget like an execution; a retake no longer
adds its own increment, and the budget check is "more than 5 claims" (reported as the executions before it).
Where teams ship it: Redis-backed stores that `HINCRBY key attempts 1` first and decide afterwards.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "claim",
             '''                snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                            record.deadline, record.outcome)
            stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot
            if stored_fingerprint != fingerprint:
                return fail(Refusal("idempotency_conflict",
                                    "this business request was already made with different arguments",
                                    reason="arguments_changed"), meta)
            now = now_ms()
            if state == "IN_PROGRESS" and record_lease > now:
                return fail(in_progress(record_lease - now), meta)
            if state == "IN_PROGRESS":
                self.compare_and_set(key, (state, epoch), "UNKNOWN", outcome)
            elif state in ("SUCCEEDED", "FAILED_FINAL"):
                return replay(outcome, meta)
            elif state == "FAILED_RETRYABLE" and attempts >= MAX_ATTEMPTS:
                envelope = fail(Refusal("retry_budget_exhausted",
                                        "this business request failed too often; retries stop here",
                                        attempts=attempts), meta)
                if self.compare_and_set(key, (state, epoch), "FAILED_FINAL", envelope):
                    return envelope
            elif state == "FAILED_RETRYABLE":
                if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                        attempts=attempts + 1, lease=lease, deadline=deadline_ms):''',
             '''                record.attempts += 1  # BUG: every claim counts, not every execution
                snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                            record.deadline, record.outcome)
            stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot
            if stored_fingerprint != fingerprint:
                return fail(Refusal("idempotency_conflict",
                                    "this business request was already made with different arguments",
                                    reason="arguments_changed"), meta)
            now = now_ms()
            if state == "IN_PROGRESS" and record_lease > now:
                return fail(in_progress(record_lease - now), meta)
            if state == "IN_PROGRESS":
                self.compare_and_set(key, (state, epoch), "UNKNOWN", outcome)
            elif state in ("SUCCEEDED", "FAILED_FINAL"):
                return replay(outcome, meta)
            elif state == "FAILED_RETRYABLE" and attempts > MAX_ATTEMPTS:  # this claim is counted already
                envelope = fail(Refusal("retry_budget_exhausted",
                                        "this business request failed too often; retries stop here",
                                        attempts=attempts - 1), meta)
                if self.compare_and_set(key, (state, epoch), "FAILED_FINAL", envelope):
                    return envelope
            elif state == "FAILED_RETRYABLE":
                if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                        attempts=attempts, lease=lease, deadline=deadline_ms):''')

if __name__ == "__main__":
    serve(__file__)
