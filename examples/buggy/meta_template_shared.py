"""Bug: execute fills one module-level meta template in place instead of a fresh dict: concurrent calls overwrite
each other's call_id, request_id and attempt, and a call's idempotency_key or reconciled flag stays on later calls.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
from correct import cp, serve

DEFAULT_META = {"replayed": False}


def execute(self, message, received):
    call, auth = message["call"], message["auth"]
    deadline = received + message["budget_ms"] / 1000
    ctx = cp.Context(self.next_request_id(), auth, deadline)
    # BUG(meta_template_shared): the template itself, updated in place, instead of dict(DEFAULT_META, ...)
    meta = DEFAULT_META
    meta.update(request_id=ctx.request_id, call_id=call["call_id"], attempt=message["attempt"])
    try:
        return self.pipeline(call, auth, message.get("business_request_id"), ctx, meta)
    except cp.Refusal as refusal:
        return cp.fail(refusal, meta)
    except Exception as error:
        cp.log("internal error: %r" % (error,))
        return cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=ctx.sent), meta)


cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
