"""Blind round 19: a reconciled result takes the status query's own `status` as the result's status.

The change: when a retry reconciles and the status query answers `{"status": "completed", "result": {...}}`, the
executor "refreshes" the result's status with the record's: a refund first answered `pending` has settled since,
so `result.status` is set to the query's `completed` before the result is projected and validated. For a tool
whose result has its own vocabulary (an email is `sent` or `queued`, an export `working`) the copied word is not
the service's answer. Where it ships: reconciliation code that merges the status record into the stored result
(`{**record["result"], "status": record["status"]}`).

Doc sentence it breaks: docs/protocol.md, Reconciliation: "`200 {"status":"completed","result":{...}}` | the
result, projected onto the output schema's properties and validated like a 2xx body"; docs/checks.md
`result-matches-downstream`.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "reconcile",
             'result = project(tool, found.get("result"))',
             'result = project(tool, dict(found.get("result") or {}, status=kind))')

if __name__ == "__main__":
    serve(__file__)
