#!/usr/bin/env python3
"""Bug: a side-effecting request whose deadline passed after it was sent is answered dependency_unavailable
(retryable, "no answer"), as a read would be, instead of timeout_unknown.

Where it ships: HTTP clients and gateways map a read timeout to 504 Gateway Timeout, and executors map 5xx to
"retry"; the request may well have committed, so the model retries into a second refund.

Expected catch: unknown-outcome-not-retryable, failure-means-not-applied and expectations
(idempotency/timeout_after_commit_reconciles, idempotency/email_not_sent_twice).
"""

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if isinstance(result, cp.Refusal) and result.code == "timeout_unknown" \
            and result.details.get("reason") == "deadline_elapsed":
        # the bug: a timeout is a 504, and a 504 is retryable
        return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream did not answer in time; "
                                              "retry", reason="no_answer")
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
