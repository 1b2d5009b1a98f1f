"""The independent Python executor with one legitimate freedom: it advises 500 ms (not
1000) for a downstream that says pending.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''{"retry_after_ms": 1000, "reason": "downstream_pending"}'''
NEW = '''{"retry_after_ms": 500, "reason": "downstream_pending"}'''

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
