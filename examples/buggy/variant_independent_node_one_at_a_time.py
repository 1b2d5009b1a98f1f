"""The independent Node executor with one legitimate freedom: `MAX_IN_FLIGHT = 1`: the next line is read only after the
previous call was answered.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = 'const MAX_IN_FLIGHT = 64;'
NEW = 'const MAX_IN_FLIGHT = 1; // Variant nv_one_at_a_time: strict back-pressure, one call at a time'

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
