"""A retake of a FAILED_RETRYABLE record bumps the epoch and the lease but not the attempt counter, so a business
operation that keeps failing retryably (5xx, not sent, 429) is executed again forever and `retry_budget_exhausted`
never comes.

Where it ships: hand-rolled idempotency state machines that set `attempts` when the row is inserted and forget it
on the UPDATE that re-claims the row.

Breaks docs/errors.md (retry_budget_exhausted): "a business operation failed retryably as many times as the
executor allows (default 5 executions); the record becomes final and every later attempt replays this error",
with `details.attempts` "the number of executions started".
"""

import json  # noqa: F401  (the copied method reads JSON)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402
from callproof_executor import (  # noqa: E402,F401  (the same module object as cp)
    CLAIM_ROUNDS, FINAL_TASK_STATUSES, derive_key, LEASE_MARGIN_MS, MAX_ATTEMPTS, Record, Refusal, _violations, fail,
    Lost, NotSent, TimedOut, in_progress, now_ms, project, rejection, replay, succeed)


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    """The held (key, version) to execute under, or an envelope to answer now."""
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
            # BUG: the retake does not count the execution it starts (attempts stays at 1)
            if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                    lease=lease, deadline=deadline_ms):
                return (key, ("IN_PROGRESS", epoch + 1))
        else:  # UNKNOWN: find the truth before anything is sent again
            answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
            if answer is not None:
                return answer
    return fail(in_progress(0), meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
