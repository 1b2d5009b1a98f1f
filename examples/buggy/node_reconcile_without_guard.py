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

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_reconcile_without_guard.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_reconcile_without_guard.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
