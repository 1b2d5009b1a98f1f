"""Correct variant: a status query whose connection cannot be made answers dependency_unavailable with
`reason: not_sent` (one transport-error mapper for every request) instead of `reconciliation_failed`.

docs/errors.md (dependency_unavailable, which covers "the status query used for reconciliation"): "`not_sent`
means the connection could not be made".
"""

import correct
from correct import cp

_send = cp.Downstream.send
_reconcile = cp.Executor.reconcile


def send(self, template, arguments, ctx, key=None):
    try:
        return _send(self, template, arguments, ctx, key=key)
    except cp.NotSent:
        ctx.connect_failed = True
        raise


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    ctx.connect_failed = False
    answer = _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    error = (answer or {}).get("error") if isinstance(answer, dict) else None
    if error and ctx.connect_failed and error["details"].get("reason") == "reconciliation_failed":
        error["details"]["reason"] = "not_sent"
        error["message"] = "the downstream service could not be reached to check an earlier attempt; nothing was sent"
    return answer


cp.Downstream.send = send
cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    correct.serve(__file__)
