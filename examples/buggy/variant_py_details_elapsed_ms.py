"""The Python example with one legitimate freedom: Every failure's `details` carries an extra member `elapsed_ms` (how
long the call had run when it failed).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '        try:\n            return self.pipeline(call, auth, message.get("business_request_id"), ctx, meta)\n        except Refusal as refusal:\n            return fail(refusal, meta)\n        except Exception as error:  # a bug here: answer internal_error, and say truly whether the request left\n            log("internal error: %r" % (error,))\n            return fail(Refusal("internal_error", "the executor failed unexpectedly", sent=ctx.sent), meta)',
)
NEW = (
    '        try:\n            envelope = self.pipeline(call, auth, message.get("business_request_id"), ctx, meta)\n        except Refusal as refusal:\n            envelope = fail(refusal, meta)\n        except Exception as error:  # a bug here: answer internal_error, and say truly whether the request left\n            log("internal error: %r" % (error,))\n            envelope = fail(Refusal("internal_error", "the executor failed unexpectedly", sent=ctx.sent), meta)\n        # variant: every failure answered now says how long the call ran (an extra `details` member)\n        if not envelope["ok"] and not envelope["meta"].get("replayed"):\n            elapsed = max(0, int((time.monotonic() - received) * 1000))\n            envelope["error"] = dict(envelope["error"], details=dict(envelope["error"]["details"], elapsed_ms=elapsed))\n        return envelope',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
