"""The independent Python executor with one legitimate freedom: it asks the status query
once more, within the deadline, when its first answer brought nothing to read (refused, lost, 5xx).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''        h["Idempotency-Key"] = key
        r = await self.http.request(method, path, h, None, ctx["deadline"])
        if r.kind == "answer" and r.status == 200:'''
NEW = '''        h["Idempotency-Key"] = key
        r = await self.http.request(method, path, h, None, ctx["deadline"])
        # variant: a status query is a read; ask once more when the answer brought nothing to read
        if (r.kind in ("refused", "lost") or (r.kind == "answer" and r.status >= 500)) \\
                and ctx["deadline"] - now_ms() > 0:
            r = await self.http.request(method, path, h, None, ctx["deadline"])
        if r.kind == "answer" and r.status == 200:'''

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
