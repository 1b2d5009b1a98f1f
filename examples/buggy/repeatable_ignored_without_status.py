"""After an unknown outcome, a tool without a status query is always `timeout_unknown` (reason unreconcilable),
even when the catalog marks it `repeatable`: a retry of `set_preference` (PUT) or `task_cancel` (DELETE) after a
lost answer is never sent again, although sending it again is safe and is what the contract asks.

Where it ships: executors that treat "no status endpoint" as "cannot reconcile" and ignore the catalog's
`repeatable` flag (or never read it).

Breaks docs/protocol.md: "A tool without a status query is sent again only if the catalog marks it `repeatable`
(set_preference's PUT, task_cancel's DELETE); otherwise it stays timeout_unknown (reason: unreconcilable)", and
docs/conformance-app.md: "a PUT is repeatable, so after an unknown outcome it is sent again".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_reconcile = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    if tool.downstream.get("status") is None:
        # BUG: the catalog's `repeatable` is not consulted; no status query means unreconcilable
        if outcome is not None:
            return cp.replay(outcome, meta)
        return cp.fail(cp.Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                                  "be reconciled automatically", reason="unreconcilable"), meta)
    return _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
