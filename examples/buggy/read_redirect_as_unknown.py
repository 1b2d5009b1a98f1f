"""A 3xx answer is `timeout_unknown` (reason unexpected_answer, not retryable, resolution reconcile) for every
tool, reads included: a redirect on `get_order` or `get_weather` tells the caller to reconcile a read that has
nothing to reconcile, instead of reading again.

Where it ships: response handling written for side-effecting tools ("a redirect means the request arrived;
outcome unknown") and reused for reads without the read/write split.

Breaks docs/protocol.md (HTTP contract): "3xx (a redirect: never follow it) | sent, unknown | tools with side
effects: timeout_unknown (reason: unexpected_answer), never retryable; reads: dependency_unavailable (reason:
unexpected_answer)".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if (not tool.side_effect and isinstance(result, cp.Refusal) and result.details.get("reason") == "unexpected_answer"
            and 300 <= result.details.get("downstream_status", 0) < 400):
        # BUG: the side-effect answer for a redirect, given to a read too
        return "UNKNOWN", cp.Refusal("timeout_unknown", "the downstream answered outside its contract after the "
                                     "request was sent; its outcome is unknown", reason="unexpected_answer",
                                     downstream_status=result.details["downstream_status"])
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
