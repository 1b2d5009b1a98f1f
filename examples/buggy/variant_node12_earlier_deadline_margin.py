"""Correct variant of the independent Node executor: a status query's "not found" is taken as proof that the
earlier attempt never applied only 1000 ms after that attempt's deadline (a transit margin); before that the retry
answers operation_in_progress (awaiting_earlier_deadline), its retry_after_ms counting the margin.

docs/protocol.md: "(a downstream counts it from the request's arrival, a little after you sent it, so a margin
past it for that transit is fine; the scenarios ask again at least 1.5 s after the deadline)".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = ("if (t < earlier) {",
       "retry_after_ms: Math.max(0, earlier - t) + 100,")
NEW = ("if (t < earlier + 1000) { // a transit margin past the earlier deadline",
       "retry_after_ms: Math.max(0, earlier + 1000 - t) + 100,")

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
