#!/usr/bin/env python3
"""Bug: only 502, 503 and 504 are transient; any other 5xx (a 500) is a final business refusal.

Where it ships: retry policies with an explicit list of "retryable statuses" (`[502, 503, 504]`, the default of
several HTTP retry libraries and gateways), everything else falling through to "the service refused": a 500
becomes business_rejected, recorded as final, so the retry replays the refusal though nothing was applied.
docs/conformance-app.md: "5xx: not applied (the mock promises it)", `dependency_unavailable`, retryable with the
same key.

Expected check: expectations, in a scenario whose downstream answers 500 and pins dependency_unavailable (or a
retry that must execute).
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if isinstance(result, cp.Refusal) and result.code == "dependency_unavailable":
        status = result.details.get("downstream_status")
        if status is not None and status not in (502, 503, 504):  # BUG
            refusal = cp.Refusal("business_rejected", "a business rule refused the request",
                                 reason="downstream_refused", downstream_status=status)
            return "FAILED_FINAL", refusal
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
