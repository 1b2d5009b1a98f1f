#!/usr/bin/env python3
"""Correct, written another way: before every side-effecting request of a tool with a status query, the
executor asks the status query by the operation's key ("was this done already?"). `completed` answers the
result without sending, `pending` answers operation_in_progress, `rejected` business_rejected; anything else
(404, a failure) lets the request go as the example sends it.

Where it ships: payment and messaging clients that check by idempotency key before every send, so that a retry
after a crash never needs to know whether it is one.

Permitted by docs/protocol.md: "After an unknown outcome, the next attempt of the same business request first
asks the tool's `downstream.status` query": asking also when nothing was unknown sends nothing with side
effects, and the request that follows carries the same key ("every side-effecting request and status query of
one business operation carries the same Idempotency-Key", docs/checks.md `same-key`).

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def preflight(self, tool, arguments, ctx, key):
    """What the status query says settles the call, or None to send the request."""
    try:
        status, _, body = self.downstream.send(tool.downstream["status"], arguments, ctx, key=key)
    except (cp.NotSent, cp.Lost, cp.TimedOut):
        return None
    finally:
        ctx.sent = False
    if status != 200:
        return None
    try:
        found = cp.json.loads(body)
    except ValueError:
        return None
    kind = found.get("status") if isinstance(found, dict) else None
    if kind == "completed":
        return "SUCCEEDED", cp.project(tool, found.get("result"))
    if kind == "pending":
        refusal = cp.in_progress(0)
        refusal.details["reason"] = "downstream_pending"
        return "FAILED_RETRYABLE", refusal
    if kind == "rejected":
        return "FAILED_FINAL", cp.rejection(tool, body, "downstream_rejected")
    return None


def call_tool(self, tool, arguments, ctx, held):
    if held and tool.downstream.get("status") and ctx.remaining_ms() > 0:
        settled = preflight(self, tool, arguments, ctx, held[0])
        if settled is not None:
            return settled
    return ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
