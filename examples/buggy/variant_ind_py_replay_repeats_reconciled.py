"""The independent Python executor with one legitimate freedom: it stores whether an
outcome was reconciled and repeats `meta.reconciled: true` when it replays it.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '''                    env = self.fail(ctx, "output_invalid", bad, key=key, reconciled=True)
                    self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")''',
    '''                env = self.success(ctx, result, key=key, reconciled=True)
                self.settle(rec, {"ok": True, "result": result}, "SUCCEEDED")''',
    '''                env = self.fail(ctx, "business_rejected", d, key=key, reconciled=True)
                self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")''',
    '''            if out["ok"]:
                return self.success(ctx, out["result"], replayed=True, key=key)
            return {"ok": False, "error": out["error"], "meta": self.meta(ctx, replayed=True, key=key)}''',
)
NEW = (
    '''                    env = self.fail(ctx, "output_invalid", bad, key=key, reconciled=True)
                    self.settle(rec, {"ok": False, "error": env["error"], "reconciled": True}, "FAILED_FINAL")''',
    '''                env = self.success(ctx, result, key=key, reconciled=True)
                self.settle(rec, {"ok": True, "result": result, "reconciled": True}, "SUCCEEDED")''',
    '''                env = self.fail(ctx, "business_rejected", d, key=key, reconciled=True)
                self.settle(rec, {"ok": False, "error": env["error"], "reconciled": True}, "FAILED_FINAL")''',
    '''            # variant: a replay of a reconciled outcome repeats meta.reconciled
            again = bool(out.get("reconciled"))
            if out["ok"]:
                return self.success(ctx, out["result"], replayed=True, reconciled=again, key=key)
            return {"ok": False, "error": out["error"],
                    "meta": self.meta(ctx, replayed=True, reconciled=again, key=key)}''',
)

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
