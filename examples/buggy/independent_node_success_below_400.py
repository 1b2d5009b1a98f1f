"""independent_node_success_below_400: The tool's answer counts as a success when its status is below 400 (a hand-
written `res.ok`), so a 3xx is read as an applied answer whose body is not JSON.

Doc sentence it breaks: docs/conformance-app.md: a 3xx is never followed and is `timeout_unknown`
(`unexpected_answer`) for a side effect, `dependency_unavailable` for a read.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    '  const st = resp.status;\n'
    '  if (st >= 200 && st < 300) {\n'
    '    if (!resp.complete) {\n'
)
NEW = (
    '  const st = resp.status;\n'
    '  if (st >= 200 && st < 400) { // BUG(node_success_below_400): anything below 400 is "ok", as a hand-written res.ok\n'
    '    if (!resp.complete) {\n'
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
