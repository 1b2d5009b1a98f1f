#!/usr/bin/env python3
"""Correct, written another way: slower, and unevenly so, inside every deadline. Before each downstream request
it waits a random 0-150 ms (never more than a quarter of what is left of the call's budget), and before each
answer another random 0-150 ms (never more than a quarter of what is left, nothing once the deadline passed).

Where it ships: executors behind queues, connection pools, rate limiters and GC pauses; none answers in
constant time.

Permitted by docs/protocol.md: "`budget_ms`: the time budget, counted from when you read the line. Turn it into
one absolute deadline." and "5. **One deadline per call**: refuse to start after it (`timeout_not_started`),
bound every request by it": what happens inside the deadline may take any time. X-Deadline-Ms stays "the
milliseconds left of the call's budget when the request is sent" (computed after the wait).

Expected: passes every check under --profile all. A false-positive probe for the checks and scenarios whose
verdict depends on time (deadline-propagated, unknown-outcome-not-retryable, answer-within-deadline,
attribution by window, fault windows such as drop_then_land and hold_until).
"""

import random
import time

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send
ORIGINAL_EXECUTE = cp.Executor.execute
MAX_WAIT_S = 0.150


def pause(remaining_s):
    if remaining_s > 0:
        time.sleep(random.uniform(0, min(MAX_WAIT_S, remaining_s / 4)))


def send(self, template, arguments, ctx, key=None):
    pause(ctx.remaining_ms() / 1000)
    return ORIGINAL_SEND(self, template, arguments, ctx, key)


def execute(self, message, received):
    envelope = ORIGINAL_EXECUTE(self, message, received)
    pause(received + message["budget_ms"] / 1000 - time.monotonic())
    return envelope


cp.Downstream.send = send
cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
