"""Independent Node executor with one bug: the record file is written only when a record settles: an IN_PROGRESS claim
lives in memory only, so a kill after the request was sent loses it and the restarted executor sends the refund
again.

Where it ships: a store that batches its writes and flushes "when something final happens", to save a disk write per
call.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }'
NEW = "  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; if (rec.state !== 'IN_PROGRESS') this.flush(); }"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
