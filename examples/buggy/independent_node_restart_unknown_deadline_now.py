"""independent_node_restart_unknown_deadline_now: At start-up, records left IN_PROGRESS by a dead process become
unknown with their deadline set to now, although the request it sent may still sit in the downstream with its own
`X-Deadline-Ms`.

Doc sentence it breaks: docs/protocol.md: a 404 before the earlier attempt's deadline is `operation_in_progress`; an
attempt whose process died keeps the deadline it sent with.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    '        rec.updated_ms = Date.now();\n'
    '        changed = true;\n'
)
NEW = (
    '        rec.updated_ms = Date.now();\n'
    "        rec.deadline_ms = Date.now(); // BUG(node_restart_unknown_deadline_now): the dead holder's deadline is taken as over\n"
    '        changed = true;\n'
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
