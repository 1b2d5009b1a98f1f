#!/usr/bin/env python3
"""Correct, written another way: a status query that answers `404 not_found` is asked once more, at once,
before the executor believes it (a confirming read against a replica that may lag); the second answer decides.

Where it ships: clients of eventually consistent status stores (a read replica, a search index) that read twice
before acting on an absence.

Permitted by docs/protocol.md: "After an unknown outcome, the next attempt of the same business request first
asks the tool's `downstream.status` query": how many times it asks is not fixed, and a status query sends
nothing with side effects.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    answer = ORIGINAL_SEND(self, template, arguments, ctx, key)
    if "idempotency_key=" in template and answer[0] == 404:
        return ORIGINAL_SEND(self, template, arguments, ctx, key)
    return answer


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
