#!/usr/bin/env python3
"""Bug: an answer that comes back after the call's deadline is thrown away as a timeout that changed nothing:
the executor answers dependency_unavailable (retryable) and releases its claim, though the downstream applied
the request, so the retry executes it again.

Where it ships: workers that check `if time.monotonic() > deadline: raise Timeout()` after the HTTP call
returns and treat that timeout like a refused connection. It never fires on a healthy machine (the socket
timeout is the remaining budget); it fires after a stop-the-world pause (a long GC, a frozen container, a
swapped-out VM) with the answer already in the socket buffer.

Expected catch: failure-means-not-applied and single-effect under the `pause` fault (the process stopped
past its deadline and lease); nothing before that fault existed.
"""

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, outcome = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if ctx.remaining_ms() <= 0 and state == "SUCCEEDED":
        # The bug: the deadline check after the call, as if a late answer meant no answer.
        return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream did not answer in time",
                                              reason="no_answer")
    return state, outcome


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
