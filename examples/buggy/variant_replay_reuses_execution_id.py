"""VARIANT: a call that will replay a settled operation uses the settled execution's request id throughout.

Behaviour: right after decoding, a call of a side-effecting tool reads (without claiming) the record of its business
operation's key. When the record is settled (SUCCEEDED or FAILED_FINAL: it can only be replayed from then on), the
call takes the request id of the execution that settled it as its own: its ownership lookup carries that id in
`X-Request-Id`, and its answer, the replay, carries it in `meta.request_id`. Calls whose operation is not settled
mint a fresh id, as in the example. (The first attempt of `replay_keeps_request_id` put the old id only in the replay's
meta, so its lookup carried an id no envelope had: a mistake of that variant, fixed here.)

Where it ships: idempotency middlewares that key their request/trace id by the operation, so every retry of a
finished operation points an operator at the one execution that happened (Stripe-style stored responses).

Relies on docs/envelope.schema.json meta: `request_id` is "The executor's id for this execution", `replayed` "the stored
outcome of an earlier attempt" (a replay runs no execution: it reports the stored one); docs/checks.md
(meta-echoes-call): "`meta.request_id` is the executor's own id, not one it is told". Every downstream request still
carries the `meta.request_id` of the envelope it serves.
"""

from correct import cp, serve

_pipeline = cp.Executor.pipeline


def pipeline(self, call, auth, business_request_id, ctx, meta):
    tool, arguments, canonical_arguments, arguments_hash = cp.decode(call, self.tools)
    if tool.side_effect:
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        with self.lock:
            record = self.records.get(key)
            settled = record is not None and record.state in ("SUCCEEDED", "FAILED_FINAL") and record.outcome
            stored_id = record.outcome["meta"].get("request_id") if settled else None
        if stored_id and record.fingerprint == arguments_hash:
            # VARIANT: the settled execution's request id for this whole call (lookup header and replay meta).
            ctx.request_id = stored_id
            meta["request_id"] = stored_id
    return self.run_decoded(tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                            meta)


cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
