"""Buggy executor: a status answer that names no known status is read as pending.

Changed place: `Executor.reconcile`, where the status query's body is read (examples/python/callproof_executor.py).
A 200 whose JSON names no status, or one the contract does not list, is taken as "still pending" and answered
`operation_in_progress` (`downstream_pending`) instead of `dependency_unavailable` (`reconciliation_failed`).
Where teams ship it: reconcilers that default `body.get("status", "pending")` "to be safe".
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "reconcile",
             '''        kind = found.get("status") if isinstance(found, dict) else None''',
             '''        kind = found.get("status") if isinstance(found, dict) else None
        if isinstance(found, dict) and kind not in ("completed", "rejected", "pending", "not_found"):
            kind = "pending"  # BUG: an answer that names no known status is taken as "still pending"''')

if __name__ == "__main__":
    serve(__file__)
