#!/usr/bin/env python3
"""Bug: reconciliation asks the refunds status endpoint for every tool.

Where it ships: reconciliation written for the first side-effecting tool (payments) and reused: the status URL
is a constant, not the tool's own `downstream.status`. For an email or a deletion whose answer was lost, the
refunds service has never heard of the key and answers 404 not_found; once the earlier deadline has passed the
executor sends the email (or the deletion) again. docs/protocol.md (Reconciliation): "first asks the tool's
`downstream.status` query".

Expected check: single-effect / reconcile-before-resend (if it judges the status query's endpoint) or
expectations (ledger `emails = 1`, `reconciled = true`), in a scenario that loses an email's answer and retries
after the first attempt's deadline.
"""

import copy

from correct import cp, serve

STATUS_QUERY = "GET /refunds?idempotency_key={idempotency_key}"
_reconcile = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    if tool.downstream.get("status"):
        # BUG: one status URL for every tool.
        tool = copy.copy(tool)
        tool.downstream = dict(tool.downstream, status=STATUS_QUERY)
    return _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
