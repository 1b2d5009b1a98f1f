"""The independent Python executor with one legitimate freedom: the independent Python executor's file store written
and renamed into place without fsync (survives a killed process, which is what `durable_store` promises, not a power
loss).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''            json.dump({"records": self.records, "tasks": self.tasks}, f)
            f.flush()
            os.fsync(f.fileno())
'''
NEW = '''            json.dump({"records": self.records, "tasks": self.tasks}, f)
            # variant: no flush+fsync; the rename below is atomic and a SIGKILL keeps the page cache
'''

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
