"""Correct variant: operation_in_progress for a live holder answers retry_after_ms = 500, a fixed poll interval,
instead of what is left of the lease (errors.md: "`retry_after_ms` (always): how long to wait, a whole number of
milliseconds from now, at most an hour ..., such as what is left of the holder's lease")."""
import correct
from correct import cp

correct.changed_copy(cp.Executor, "claim", "return fail(in_progress(record_lease - now), meta)",
                     "return fail(in_progress(500), meta)")

if __name__ == "__main__":
    correct.serve(__file__)
