"""The Python example with one legitimate freedom: The call's absolute deadline is kept on the wall clock
(`time.time()`, Unix ms) instead of `time.monotonic()`: the line's read time and `remaining_ms` both use it.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '        return max(0, int((self.deadline - time.monotonic()) * 1000))',
    '        deadline = received + message["budget_ms"] / 1000',
    '            received = time.monotonic()',
)
NEW = (
    '        # variant: the deadline is an absolute wall-clock time in Unix ms\n        return max(0, int(self.deadline - time.time() * 1000))',
    '        deadline = received + message["budget_ms"]  # variant: Unix ms',
    '            received = time.time() * 1000  # variant: wall clock, Unix ms',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
