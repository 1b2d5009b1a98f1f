#!/usr/bin/env python3
"""Correct, written another way: more careful than it must be. Before it sends a business operation again after
a definite retryable failure (a 5xx, a 429, a connection refused, a timeout before sending), it asks the tool's
status query by the operation's key first, as it must after an unknown outcome. "Not found" (or a status query
that fails) sends as before; any other answer makes it treat the earlier outcome as unknown and reconcile.

Where it ships: executors that reconcile before every resend, whatever the previous failure was, because one
code path is easier to audit than two (and a 5xx from a real payment service does not always mean nothing
happened).

Permitted by docs/protocol.md: "an unknown one is reconciled before anything is sent again" requires a status
query after an unknown outcome and forbids none elsewhere; a status query is a read that changes nothing and
carries the operation's `Idempotency-Key` ("the business operation's key, on side-effecting requests and status
queries"). docs/errors.md `retry_same_key`: "Retry with the same business request id; the executor reuses the
same idempotency key downstream", which it does.

Expected: passes every check under --profile all. A false-positive probe for checks and expectations that count
requests (a fault's `nth`, rejection-has-no-effect) or treat a status query as a sign of an unknown outcome.
"""

import json

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    template = tool.downstream.get("status")
    with self.lock:
        record = self.records.get(key)
        snapshot = None if record is None else (record.fingerprint, record.state, record.epoch, record.attempts)
    if (template is not None and snapshot is not None and snapshot[0] == fingerprint
            and snapshot[1] == "FAILED_RETRYABLE" and snapshot[3] < cp.MAX_ATTEMPTS):
        try:
            status, _, body = self.downstream.send(template, arguments, ctx, key=key)
        except (cp.NotSent, cp.Lost, cp.TimedOut):
            status, body = None, b""
        finally:
            ctx.sent = False  # a status query is not the side effect's request
        if status == 200:
            try:
                found = json.loads(body)
            except ValueError:
                found = None
            if isinstance(found, dict) and found.get("status") in ("completed", "rejected", "pending"):
                # Something did happen: not the definite failure it looked like. Reconcile it as unknown.
                self.compare_and_set(key, ("FAILED_RETRYABLE", snapshot[2]), "UNKNOWN", None)
    return ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
