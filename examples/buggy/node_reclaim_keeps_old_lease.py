#!/usr/bin/env python3
"""Bug: the Node executor's retake of a FAILED_RETRYABLE record bumps its state, epoch and attempts but keeps the
first attempt's lease and deadline, so a retry after that lease runs under an expired one: a duplicate of it is
reconciled against the first attempt's deadline and, with nothing found yet, executed again.

Where it ships: idempotency stores whose lease is set only by the insert path (the retry path being an
`UPDATE ... SET attempts = attempts + 1, state = 'in_progress'`). docs/protocol.md: "a duplicate while the first
runs is `operation_in_progress`"; "An `IN_PROGRESS` record whose lease (deadline + 2 s) ran out is unknown";
docs/errors.md, operation_in_progress: "another attempt of the same business operation holds the record and its
lease has not expired".

Expected checks: single-effect, burst-single-execution, only for a slow retry more than budget + 2 s after a
retryable failure, duplicated while it runs. Written blind in round 4 (examples/buggy/BLIND4.md).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = (
    "        Object.assign(record, { state: 'IN_PROGRESS', epoch: record.epoch + 1, attempts: record.attempts + 1, lease,\n"
    "          deadline: deadlineWall, outcome: null });\n"
)

NEW = (
    "        // BUG: the retake leaves lease and deadline as the first attempt set them.\n"
    "        Object.assign(record, { state: 'IN_PROGRESS', epoch: record.epoch + 1, attempts: record.attempts + 1,\n"
    "          outcome: null });\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
