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

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_lease_on_monotonic_clock.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_lease_on_monotonic_clock.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
