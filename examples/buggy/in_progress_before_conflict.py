"""Bug: the claim looks at the live lease before comparing fingerprints, so a call
with changed arguments that arrives while the first attempt still runs answers operation_in_progress instead of
idempotency_conflict ("lock first, compare later").

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

fail, in_progress, replay, Refusal, Record = cp.fail, cp.in_progress, cp.replay, cp.Refusal, cp.Record
now_ms, LEASE_MARGIN_MS, CLAIM_ROUNDS, MAX_ATTEMPTS = cp.now_ms, cp.LEASE_MARGIN_MS, cp.CLAIM_ROUNDS, cp.MAX_ATTEMPTS


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    deadline_ms = now_ms() + ctx.remaining_ms()
    lease = deadline_ms + LEASE_MARGIN_MS
    for _ in range(CLAIM_ROUNDS):
        with self.lock:
            record = self.records.get(key)
            if record is None:
                self.records[key] = Record(fingerprint, lease, deadline_ms)
                return (key, ("IN_PROGRESS", 1))
            snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                        record.deadline, record.outcome)
        stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot
        now = now_ms()
        # BUG(in_progress_before_conflict): a held record answers in_progress before the arguments are compared.
        if state == "IN_PROGRESS" and record_lease > now:
            return fail(in_progress(record_lease - now), meta)
        if stored_fingerprint != fingerprint:
            return fail(Refusal("idempotency_conflict",
                                "this business request was already made with different arguments",
                                reason="arguments_changed"), meta)
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
                                    attempts=attempts + 1, lease=lease, deadline=deadline_ms):
                return (key, ("IN_PROGRESS", epoch + 1))
        else:
            answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
            if answer is not None:
                return answer
    return fail(in_progress(0), meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
