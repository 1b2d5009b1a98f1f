#!/usr/bin/env python3
"""Bug: the Node executor's reconciliation has no guard ("JavaScript is single-threaded, no lock needed"):
two retries of one unknown operation both await the status query, and each writes the record's state after its
`await` from what it read before it. Both see `not_found` after the earlier deadline; the first retakes the record
and sends, the second's write puts the record back to UNKNOWN/FAILED_RETRYABLE under it, retakes it and sends
again.

Where it ships: async code that reads state, awaits I/O, and writes state decided from the stale read.
docs/protocol.md: an unknown one is reconciled before anything is sent again; one effect per operation.

Expected catch: concurrent retries of one unknown operation after its deadline with the status query answering
404 (single-effect).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "    record.state = 'RECONCILING'; // one reconciliation at a time; others are told to wait\n"

NEW = (
    '    // BUG: no RECONCILING guard ("one thread, no races"): concurrent retries all reconcile, and each writes\n'
    "    // the record's state after its await from what it read before it.\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
