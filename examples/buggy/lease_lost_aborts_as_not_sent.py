"""Bug: an answer that comes back after the record's lease is thrown away as "lease lost", reported as not sent.

A wrapper of `Executor.call_tool`: when the downstream's answer arrives after the lease of the record the call
holds (deadline + 2 s) has run out, the holder assumes another attempt may own the record now and aborts with
an exception instead of recording, the distributed-lock rule "a holder whose lock expired must not write". A
generic handler turns it into `internal_error` with `sent: false` under a fresh request id (as the example's
catch-all did until round 8 fixed it), although the request was sent and, when the process was stopped after the
commit, applied.

Doc sentence broken: docs/protocol.md (pause) "What you answer then must be true (the effect happened: `ok`, or
`timeout_unknown`; never a failure that says nothing was applied)"; docs/errors.md internal_error "`sent` (true
or false) when the tool crashed, telling whether it had marked its request as sent".

Where it ships: executors built on lock/lease libraries (Redis locks, etcd leases, DynamoDB lock client) that
raise LockLost / LeaseExpired after a GC pause or a stopped process, handled by a generic error handler.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve


class LeaseLost(RuntimeError):
    pass


original_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    outcome = original_call_tool(self, tool, arguments, ctx, held)
    if held is not None:
        with self.lock:
            record = self.records.get(held[0])
            lease = record.lease if record is not None else 0
        if lease < cp.now_ms():  # BUG: abort instead of recording what happened
            raise LeaseLost("the lease on %s ran out before the answer came" % held[0][:12])
    return outcome


original_pipeline = cp.Executor.pipeline


def pipeline(self, call, auth, business_request_id, ctx, meta):
    try:
        return original_pipeline(self, call, auth, business_request_id, ctx, meta)
    except LeaseLost:  # the generic handler: a fresh request id, and "nothing was sent" hard-coded
        fresh = dict(meta, request_id=self.next_request_id())
        return cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), fresh)


cp.Executor.call_tool = call_tool
cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
