"""Correct variant (blind round 18): the Python example giving `operation_in_progress` for a live holder a reason
of its own, `details.reason = "held_by_another_attempt"` (the downstream_pending and awaiting_earlier_deadline cases
still overwrite it with theirs).

Permitted by: docs/errors.md operation_in_progress "In the first (a live holder) no `reason` is asked for, and one
of the executor's own is a clue like any added detail."
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(cp, "in_progress", "retry_after_ms=max(100, retry_after_ms))",
             'retry_after_ms=max(100, retry_after_ms), reason="held_by_another_attempt")')

if __name__ == "__main__":
    serve(__file__)
