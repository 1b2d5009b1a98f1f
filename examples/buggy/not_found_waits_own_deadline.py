"""Reconciliation that finds `not_found` compares the time with the current call's deadline instead of the
earlier attempt's: that deadline is always in the future, so every retry answers `operation_in_progress`
(reason awaiting_earlier_deadline) and the operation is never sent again, although the earlier attempt's
deadline passed long ago and the downstream abandons work past it.

Where it ships: reconcilers that use the deadline in scope (the current request's) where the stored one was meant.

Breaks docs/protocol.md (Reconciliation): `404 {"status":"not_found"}` -> "before the earlier attempt's deadline:
operation_in_progress (reason: awaiting_earlier_deadline); after it: send again with the same key".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_reconcile = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    earlier_deadline = cp.now_ms() + ctx.remaining_ms()  # BUG: this call's deadline, not the earlier attempt's
    return _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
