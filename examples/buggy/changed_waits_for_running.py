"""Bug: a call that meets a running attempt of its key waits for it and answers that attempt's outcome, without
comparing arguments, so a changed call that arrives while the first runs gets the first's result, replayed.

Single flight keyed by the idempotency key alone: duplicates that wait for the running call and share its
answer are what docs/protocol.md step 3 allows, but the wait comes before the fingerprint comparison, so other
arguments under the same business request ride along too. A refund of 40 asked for while a refund of 30 runs
is answered "refunded 30" instead of idempotency_conflict. Once the first has settled, the original claim
compares fingerprints first, so a changed call sent later is refused as it should be.

Written for idempotency/changed_arguments_while_first_runs (2026-12-05), the first scenario to send changed
arguments while the first call still runs.
"""
import time

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def running(self, key):
    """The record of `key` while an attempt holds it with a live lease, else None."""
    with self.lock:
        record = self.records.get(key)
        if record is not None and record.state == "IN_PROGRESS" and record.lease > cp.now_ms():
            return record
        return None


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    # BUG(changed_waits_for_running): waits for a running attempt and takes its outcome, whatever the arguments
    waited = False
    while running(self, key) is not None and ctx.remaining_ms() > 50:
        waited = True
        time.sleep(0.02)
    if waited:
        with self.lock:
            record = self.records.get(key)
            state, outcome = (record.state, record.outcome) if record is not None else (None, None)
        if state in ("SUCCEEDED", "FAILED_FINAL"):
            return cp.replay(outcome, meta)
    return ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
