#!/usr/bin/env python3
"""Bug: an HTTP 409 from the tool's request is answered `idempotency_conflict` instead of `business_rejected`.

Where it ships: status-to-code tables built from HTTP names ("409 Conflict" -> the conflict error), the same
table many API clients use for Stripe's 409 on a reused idempotency key. In the conformance app a 409 is the
downstream refusing for good (`order_not_refundable`, `account_already_closed`): conformance-app.md and
protocol.md map 404/409/422 to `business_rejected` (category business, resolution ask_user). The bug changes the
code, the category (idempotency) and the resolution (stop), and drops the refusal's reason.

Expected check: expectations (a step that pins `code = "business_rejected"` for a 409 refusal).
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    # BUG: 409 read as the idempotency error.
    if isinstance(result, cp.Refusal) and result.details.get("downstream_status") == 409:
        return state, cp.Refusal("idempotency_conflict", "the downstream reported a conflict",
                                 reason="arguments_changed")
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
