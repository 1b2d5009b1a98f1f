"""Bug: reconciliation that finds the downstream `pending` builds its operation_in_progress by hand, without
`retry_after_ms` (errors.md: "retry_after_ms (always)")."""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp.Executor, "reconcile",
             '''            refusal = in_progress(0)
            refusal.details["reason"] = "downstream_pending"
            return fail(refusal, meta)''',
             '''            return fail(Refusal("operation_in_progress", "the earlier attempt is still pending downstream",
                                reason="downstream_pending"), meta)''')

if __name__ == "__main__":
    serve(__file__)
