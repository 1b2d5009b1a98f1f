#!/usr/bin/env python3
"""Bug: after a retryable failure, the retake of the business operation sends the downstream a fresh
Idempotency-Key (the operation's key hashed with the record's epoch), "so the provider does not replay its cached
503"; the record keeps the operation's key, and status queries still ask by it.

Where it ships: SDKs and HTTP middleware that mint an idempotency key per HTTP attempt rather than per business
operation. docs/protocol.md: `Idempotency-Key` is the business operation's key; 5xx is `dependency_unavailable`
(retryable, same key).

Expected catch: same-key (two keys for one operation), in any scenario that retries after a 5xx or a 429.
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    if held is not None:
        key, (state, epoch) = held
        if epoch > 1:  # BUG: a retake gets a key of its own
            return _call_tool(self, tool, arguments, ctx, (cp.sha256_hex("%s/%d" % (key, epoch)), (state, epoch)))
    return _call_tool(self, tool, arguments, ctx, held)


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
