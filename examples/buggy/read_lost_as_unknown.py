"""A read whose request was sent but got no answer (the connection closed after sending, or the deadline passed
while waiting) is answered `timeout_unknown` (not retryable, resolution reconcile), the answer for a side effect:
the caller is told to reconcile a `get_order` or `get_weather` that changed nothing, instead of simply reading
again.

Where it ships: transport-error handling shared by every tool ("sent and no answer means unknown"), written for
writes and never split by risk.

Breaks docs/protocol.md (HTTP contract): "no answer by the deadline, or the connection closed after sending |
unknown | tools with side effects: timeout_unknown, never retryable; reads: dependency_unavailable (reason:
no_answer)".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if not tool.side_effect and isinstance(result, cp.Refusal) and result.details.get("reason") == "no_answer":
        # BUG: a read that got no answer is reported like a side effect's unknown outcome
        return "UNKNOWN", cp.Refusal("timeout_unknown", "the request was sent and its outcome is unknown",
                                     reason="deadline_elapsed" if ctx.remaining_ms() <= 0 else "connection_lost")
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
