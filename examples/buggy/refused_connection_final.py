#!/usr/bin/env python3
"""Bug: a refused connection is recorded as a final failure, so the retry replays it instead of sending.

Where it ships: idempotency layers that record every failed execution under the key ("the key has been used"),
so the caller's retry, which docs/errors.md tells to use the same key, gets the recorded failure back for as long
as the record lives, while the error itself said `retryable: true` and nothing was sent.

Expected catch: expectations (downstream/connection_refused_then_retry: the retries after the services are back).
"""

from correct import cp, serve

original_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, outcome = original_call_tool(self, tool, arguments, ctx, held)
    if isinstance(outcome, cp.Refusal) and outcome.details.get("reason") == "not_sent":
        return "FAILED_FINAL", outcome  # the bug: recorded for good, although nothing was sent
    return state, outcome


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
