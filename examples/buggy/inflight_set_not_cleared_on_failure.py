"""Bug: an in-process "in flight" set of idempotency keys answers duplicates operation_in_progress, and a key
leaves it only when its call succeeds.

After any failure of a side-effecting call (a 503, a business rejection, a lost answer) the key stays in the set,
and every later attempt of that business request is answered operation_in_progress for the life of the process.
Ships as in-flight dedupe sets or locks released on the happy path only (a missing `finally`). Breaks
docs/errors.md operation_in_progress ("another attempt of the same business operation holds the record and its
lease has not expired") and retry_same_key ("Retry with the same business request id").
"""

import threading

from correct import cp, serve

INFLIGHT, INFLIGHT_LOCK = set(), threading.Lock()
_claim, _compare_and_set = cp.Executor.claim, cp.Executor.compare_and_set


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    with INFLIGHT_LOCK:
        if key in INFLIGHT:
            return cp.fail(cp.in_progress(1000), meta)
    claimed = _claim(self, key, fingerprint, tool, arguments, ctx, meta)
    if not isinstance(claimed, dict):
        with INFLIGHT_LOCK:
            INFLIGHT.add(key)
    return claimed


def compare_and_set(self, key, version, state, outcome, **changes):
    done = _compare_and_set(self, key, version, state, outcome, **changes)
    if state == "SUCCEEDED":  # the bug: only a success takes the key out again
        with INFLIGHT_LOCK:
            INFLIGHT.discard(key)
    return done


cp.Executor.claim, cp.Executor.compare_and_set = claim, compare_and_set

if __name__ == "__main__":
    serve(__file__)
