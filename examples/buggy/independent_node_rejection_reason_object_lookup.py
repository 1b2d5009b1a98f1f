"""Independent Node executor with one bug: rejection() tests the downstream's reason against a plain object built from
rejection_reasons, so Object.prototype names (constructor, toString, __proto__ ...) count as listed.

Where it ships: as lookup tables made of plain objects instead of a Set or Object.hasOwn.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "  const allowed = tool.rejection_reasons || [];\n  if (e && typeof e.reason === 'string' && allowed.includes(e.reason)) details.reason = e.reason;"
NEW = "  const allowed = Object.fromEntries((tool.rejection_reasons || []).map((r) => [r, true]));\n  if (e && typeof e.reason === 'string' && allowed[e.reason]) details.reason = e.reason;"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
