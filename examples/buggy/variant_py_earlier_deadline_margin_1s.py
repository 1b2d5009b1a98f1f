"""Correct variant: after "not found" from the status query, wait until 1 s past the earlier attempt's deadline
(answering operation_in_progress, awaiting_earlier_deadline) before sending again (protocol.md: "a margin past it
for that transit is fine; the scenarios ask again at least 1.5 s after the deadline")."""
import correct
from correct import cp

correct.changed_copy(cp.Executor, "reconcile",
                     ("if earlier_deadline > now:", "in_progress(earlier_deadline - now)"),
                     ("if earlier_deadline + 1000 > now:", "in_progress(earlier_deadline + 1000 - now)"))

if __name__ == "__main__":
    correct.serve(__file__)
