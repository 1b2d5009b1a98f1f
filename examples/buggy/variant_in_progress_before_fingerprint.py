#!/usr/bin/env python3
"""Correct, written another way: a claim that finds the key held by a live attempt answers
`operation_in_progress` before it compares fingerprints; the fingerprint is compared once the record is
settled (or its lease ran out). A changed call that arrives while the first still runs is told to wait, and
its retry, once the first settled, gets `idempotency_conflict`.

Where it ships: stores that check the lock first and the payload second (a `SELECT ... FOR UPDATE NOWAIT`
that fails before the row can be read).

Permitted by docs/protocol.md step 3: "the same business request with other arguments is
`idempotency_conflict`; a duplicate while the first runs is `operation_in_progress`": the order of the two
when a changed call meets a running one is not given. Nothing is sent either way.

Expected: passes every check under --profile all (measured 2026-12-03: the suite sends its changed calls after
the first settled, and conflict-on-changed-arguments accepts a refusal that sends nothing).
"""

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    with self.lock:
        record = self.records.get(key)
        live = record is not None and record.state == "IN_PROGRESS" and record.lease > cp.now_ms()
        lease = record.lease if live else 0
    if live:
        return cp.fail(cp.in_progress(lease - cp.now_ms()), meta)
    return ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
