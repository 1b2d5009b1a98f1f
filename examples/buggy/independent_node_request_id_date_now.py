"""Independent Node executor with one bug: execute() makes meta.request_id from Date.now(), so calls that start in the
same millisecond share it.

Where it ships: as timestamp ids in logging and tracing middleware.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    request_id: 'req_' + crypto.randomBytes(12).toString('hex'),"
NEW = "    request_id: 'req_' + Date.now().toString(36),"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
