"""independent_node_unknown_deadline_refreshed: A retry that only asked the status query (and answered
`operation_in_progress`) stores its own deadline as the record's, so the deadline a later 'not found' is measured
against moves forward with every such retry.

Doc sentence it breaks: docs/protocol.md: 'the earlier attempt's deadline' is the deadline of the last attempt that
sent the request.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    '  };\n'
    "  const backToUnknown = () => settle('UNKNOWN', null, { deadline_ms: rec.earlier_deadline_ms ?? rec.deadline_ms });\n"
    '\n'
)
NEW = (
    '  };\n'
    "  const backToUnknown = () => settle('UNKNOWN', null, { deadline_ms: deadline }); // BUG(node_unknown_deadline_refreshed): this attempt's deadline, not the sending attempt's\n"
    '\n'
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
