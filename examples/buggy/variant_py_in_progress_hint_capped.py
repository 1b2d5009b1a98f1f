"""The Python example with one legitimate freedom: `operation_in_progress.details.retry_after_ms` is capped at 1000 ms
(poll sooner), at least 100 ms, instead of the whole remaining lease/deadline.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '                   retry_after_ms=max(100, retry_after_ms))',
)
NEW = (
    '                   retry_after_ms=max(100, min(1000, retry_after_ms)))  # variant: poll at least every second',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
