#!/usr/bin/env python3
"""Correct, written another way: `operation_in_progress` asks for a longer wait than the example: twice the
time it expects the operation to take, and at least 2000 ms (the example: that time, at least 100 ms).

Where it ships: executors that pad their poll hints to keep impatient agents from hammering the store.

Permitted by docs/errors.md: "`operation_in_progress` ... **Details:** `retry_after_ms` (always)" and, for
the caller, "wait `retry_after_ms` and ask again": the value is the executor's advice, and the docs fix no
bound on it.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_IN_PROGRESS = cp.in_progress
FLOOR_MS = 2000


def in_progress(retry_after_ms):
    return ORIGINAL_IN_PROGRESS(max(FLOOR_MS, 2 * retry_after_ms))


cp.in_progress = in_progress

if __name__ == "__main__":
    serve(__file__)
