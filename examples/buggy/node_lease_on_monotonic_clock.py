#!/usr/bin/env python3
"""Bug: the Node executor stores the call's absolute deadline as the idempotency record's deadline (and lease =
deadline + 2 s), but that deadline is on `performance.now()` (ms since the process started) while every lease
comparison uses `Date.now()`: each IN_PROGRESS record looks expired at once, so a duplicate that arrives while
the first attempt runs is taken for an unknown outcome, reconciled (404: nothing there yet, and the "earlier
deadline" long gone) and executed a second time.

Where it ships: mixing a monotonic clock (`performance.now()`, `process.hrtime`, Python's `time.monotonic()`)
with wall time once a value is stored beyond the call that computed it. docs/protocol.md: a duplicate while the
first runs is operation_in_progress; docs/stores.md: leases are wall-clock ms.

Expected catch: burst-single-execution, single-effect, expectations (a duplicate while in progress).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = '    const deadlineWall = wallMs() + ctx.remainingMs();\n'

NEW = (
    "    // BUG: the call's absolute deadline is on performance.now(); every lease comparison is on Date.now().\n"
    '    const deadlineWall = ctx.deadline;\n'
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
