"""Independent Node executor with one bug: the time a line was read is performance.timeOrigin + performance.now(), a
fraction of a millisecond, so retry_after_ms comes out fractional (6496.57).

Where it ships: a switch to the monotonic high-resolution clock "for accurate deadlines", its milliseconds never
rounded.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '  const readAt = Date.now();'
NEW = '  const readAt = performance.timeOrigin + performance.now();'

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
