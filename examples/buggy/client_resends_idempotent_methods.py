#!/usr/bin/env python3
"""Bug: the HTTP client sends a PUT or DELETE again by itself when the connection drops after the request left.

Where it ships: clients that retry "idempotent" methods on a dropped connection without being asked (aiohttp's
connector does, urllib3's `Retry` does for PUT and DELETE by default, Go's transport does on a reused
connection), under an executor that never meant to resend. docs/protocol.md: a request with side effects is never
sent a second time by the call itself; after an unknown outcome, reconciliation decides. A second DELETE finds the
account already closed, and the call reports that refusal for an outcome it never learnt.

Expected catch: expectations (idempotency/dropped_delete_not_resent, idempotency/repeatable_write_after_drop).
Found by a correct executor written blind in round 8 on aiohttp, whose author switched the retry off.
"""

from correct import cp, serve

original_send = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    try:
        return original_send(self, template, arguments, ctx, key=key)
    except cp.Lost:
        if template.split(" ", 1)[0] in ("PUT", "DELETE"):  # the bug: "idempotent, so safe to send again"
            return original_send(self, template, arguments, ctx, key=key)
        raise


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
