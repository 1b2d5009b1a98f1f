#!/usr/bin/env python3
"""Bug: a refused connection to a side-effecting service is reported as an unknown outcome (timeout_unknown).

Where it ships: one `except (ConnectionError, Timeout)` around the HTTP call (requests, httpx, aiohttp), written
as "the network failed, we cannot know", although a connection that was never made sent nothing
(docs/protocol.md: connection refused is `dependency_unavailable`, `reason: not_sent`). The caller is told not to
retry and to inspect, and the retry goes through reconciliation for nothing.

Expected catch: expectations (downstream/connection_refused_then_retry).
"""

from correct import cp, serve

original_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, outcome = original_call_tool(self, tool, arguments, ctx, held)
    refused = isinstance(outcome, cp.Refusal) and outcome.details.get("reason") == "not_sent"
    if refused and tool.side_effect:  # the bug: every connection error counts as "it may have been applied"
        return "UNKNOWN", cp.Refusal("timeout_unknown", "the request's outcome is unknown",
                                     reason="connection_lost")
    return state, outcome


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
