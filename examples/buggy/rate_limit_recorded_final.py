#!/usr/bin/env python3
"""Bug: a 429 is recorded as a final failure, so the retry after `retry_after_ms` replays rate_limited forever.

Where it ships: the record's state chosen from the HTTP status class (`4xx -> FAILED_FINAL`, `5xx ->
FAILED_RETRYABLE`), which files a 429 with the 4xx refusals. The envelope is right (rate_limited, retryable,
retry_after_ms), only the record is wrong. docs/errors.md rate_limited: the downstream "did not apply" the
request; "wait at least retry_after_ms, then retry the same business request", which must then execute.

Expected check: expectations, in a scenario that retries after a rate limit and pins ok (and the ledger).
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if isinstance(result, cp.Refusal) and result.code == "rate_limited":
        state = "FAILED_FINAL"  # BUG: a 4xx is final
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
