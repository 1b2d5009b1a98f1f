"""independent_node_lookup_status_in_forbidden: The refusal after the ownership lookup carries `downstream_status` (404
for a missing resource, none for a foreign one) for debugging.

Doc sentence it breaks: docs/errors.md: a resource that does not exist gets exactly the same answer as one that
belongs to someone else.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    '    const st = resp.status;\n'
    "    if (st === 404) return fail(err('forbidden', { reason: 'resource_not_accessible' }));\n"
    '    if (st >= 200 && st < 300) {\n'
)
NEW = (
    '    const st = resp.status;\n'
    "    if (st === 404) return fail(err('forbidden', { reason: 'resource_not_accessible', downstream_status: st })); // BUG(node_lookup_status_in_forbidden): status kept for debugging\n"
    '    if (st >= 200 && st < 300) {\n'
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
