#!/usr/bin/env python3
"""Bug: a replay answers the stored envelope's meta: the first call's call_id, request_id and
attempt, with only `replayed` set.

Where it ships: idempotency middleware that stores the whole response and sends it back verbatim (headers and
trace ids included), flipping one "replayed" flag. The model gets an answer tagged with another call's id; logs
and traces tie the replay to the first call. docs/protocol.md: `call_id` is echoed in `meta.call_id`,
`attempt` in `meta.attempt`; each answer has its own `meta.request_id`.

Expected check: `meta-echoes-call` (every envelope's meta.call_id and meta.attempt are the call's own), on any
scenario whose retry is answered by a replay. Written blind (before that check existed), when only
`request-id-propagated` (a SHOULD) tripped on it, with a message about downstream requests.
"""

from correct import cp, serve


def replay(stored, meta):
    if stored is None:
        return cp.fail(cp.Refusal("internal_error", "the idempotency store failed", reason="store_failed"), meta)
    # BUG: the stored meta comes back (the first call's call_id, request_id and attempt); only `replayed` is set.
    answer = dict(stored)
    answer["meta"] = dict(stored["meta"], replayed=True)
    return answer


cp.replay = replay

if __name__ == "__main__":
    serve(__file__)
