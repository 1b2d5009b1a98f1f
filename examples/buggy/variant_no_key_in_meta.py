#!/usr/bin/env python3
"""Correct, written another way: envelopes never carry `meta.idempotency_key`. The key is still derived, used
downstream and stored exactly as in the example; it is just not shown to the model.

Where it ships: executors that keep their idempotency keys internal (they are derived from tenant and subject,
and some teams treat them as an implementation detail or a correlation handle not to leak).

Permitted by docs/envelope.schema.json: `meta` requires only `request_id`, `call_id`, `attempt` and `replayed`;
`idempotency_key` is "Present only for tools with side effects, once the call got as far as the idempotency
stage" (when it may appear, not that it must). docs/protocol.md's execute/result sections ask for
`meta.call_id` and `meta.attempt` to be echoed and nothing about the key.

Expected: passes every check under --profile all. A false-positive probe for checks that use the envelope's key
(conflict-on-changed-arguments takes it as a sign that the call reached the idempotency stage; same-key must
judge the downstream's headers, not the envelope).
"""

from correct import cp, serve

ORIGINAL_SUCCEED = cp.succeed
ORIGINAL_FAIL = cp.fail
ORIGINAL_REPLAY = cp.replay


def succeed(result, meta):
    envelope = ORIGINAL_SUCCEED(result, meta)
    envelope["meta"].pop("idempotency_key", None)
    return envelope


def fail(refusal, meta):
    envelope = ORIGINAL_FAIL(refusal, meta)
    envelope["meta"].pop("idempotency_key", None)
    return envelope


def replay(stored, meta):
    envelope = ORIGINAL_REPLAY(stored, meta)
    envelope["meta"].pop("idempotency_key", None)
    return envelope


cp.succeed = succeed
cp.replay = replay
cp.fail = fail

if __name__ == "__main__":
    serve(__file__)
