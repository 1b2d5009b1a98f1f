"""Bug: when the status query cannot be used, reconciliation replays the stored timeout_unknown ("what we last
knew") instead of answering dependency_unavailable (reason reconciliation_failed)."""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp.Executor, "reconcile", "return fail(failed, meta)",
             "return replay(outcome, meta) if outcome is not None else fail(failed, meta)", count=4)

if __name__ == "__main__":
    serve(__file__)
