"""Bug: without a business request id, the model's call_id stands in for it.

`Executor.pipeline`: when `business_request_id` is null, the call's `call_id` (the model's tool_call_id) is used
as the business request id for the idempotency key. Every retry of such an operation under a new call_id gets a
new key, and so executes again; the same operation's requests carry different Idempotency-Keys.

Doc sentence broken: docs/protocol.md "`call_id` is echoed in `meta.call_id` and never part of the idempotency
key"; "one key per business operation, never per call_id or attempt"; docs/protocol.md (the reference key)
"followed by `b` and the business request id when there is one, else by `a` and the 32 raw bytes of the
arguments' SHA-256".

Where it ships: agent frameworks and tool runtimes that use OpenAI's `tool_call_id` (or MCP's request id) as the
idempotency key whenever the application did not pass one.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve


def pipeline(self, call, auth, business_request_id, ctx, meta):
    tool, arguments, canonical_arguments, arguments_hash = cp.decode(call, self.tools)
    if business_request_id is None:
        business_request_id = call["call_id"]  # BUG: the call id as the operation's id
    return self.run_decoded(tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)


cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
