#!/usr/bin/env python3
"""Correct, written another way: every answer leaves 20-80 ms after its call finished, whatever is left of the
budget (so an answer to a call that used its whole budget leaves up to 80 ms after the deadline).

Where it ships: answers that go through a logging middleware, an audit write, a serializer on a busy event
loop or a batching writer before they reach stdout.

Permitted by docs/protocol.md: "an answer after the budget but within 1.5 s still passes the
`answer-within-deadline` check", and the deadline bounds the downstream requests ("bound every request by
it"), not the moment the envelope is written.

Expected: passes every check under --profile all. A probe for checks that read the answer's arrival time as
the executor's view of the deadline (`unknown-outcome-not-retryable`, attribution by window).
"""

import random
import time

from correct import cp, serve

ORIGINAL_EXECUTE = cp.Executor.execute


def execute(self, message, received):
    envelope = ORIGINAL_EXECUTE(self, message, received)
    time.sleep(random.uniform(0.020, 0.080))
    return envelope


cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
