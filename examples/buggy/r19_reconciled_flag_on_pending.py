"""Blind round 19: `meta.reconciled` is set as soon as the status query answered readably.

The change: the reconciliation step marks the call reconciled right after it has read the status answer, before it
looks at what the answer says. `completed` and `rejected` are as before; but a `pending` answer
(`operation_in_progress`, downstream_pending), a `not_found` within the earlier deadline (`operation_in_progress`,
awaiting_earlier_deadline) and a `not_found` after it, where the call goes on to send the request again and answers
what that new execution got, all carry `reconciled: true` too. Where it ships: code that sets the flag where the
query is made ("we reconciled") rather than where an outcome is established.

Doc sentence it breaks: docs/envelope.schema.json meta.reconciled: "Present (and true) only when the outcome was
established by asking the downstream after an unknown outcome."
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "reconcile",
             '        kind = found.get("status") if isinstance(found, dict) else None\n',
             '        kind = found.get("status") if isinstance(found, dict) else None\n'
             '        if kind in ("completed", "rejected", "pending", "not_found"):\n'
             '            meta["reconciled"] = True\n')

if __name__ == "__main__":
    serve(__file__)
