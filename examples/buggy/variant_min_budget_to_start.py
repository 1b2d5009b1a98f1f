#!/usr/bin/env python3
"""Correct, written another way: a downstream request is not started when less than 50 ms of the call's deadline
are left: the call is refused `timeout_not_started` (`deadline_elapsed`) before anything is sent, as if the
deadline had passed, because an answer could not come back in time anyway.

Where it ships: gRPC-style "minimum deadline" guards and executors that will not start work they cannot finish.

Permitted by docs/protocol.md: "5. **One deadline per call**: refuse to start after it (`timeout_not_started`),
bound every request by it." and docs/errors.md (timeout_not_started): "the budget was spent by the time the tool
would be called". Refusing a few milliseconds early is refusing to start; nothing was applied.

Expected: passes every check under --profile all, unless a scenario gives a call less than 50 ms and pins
another answer.
"""

from correct import cp, serve

MIN_LEFT_MS = 50
ORIGINAL_SEND = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    if ctx.remaining_ms() < MIN_LEFT_MS:
        raise cp.TimedOut()
    return ORIGINAL_SEND(self, template, arguments, ctx, key)


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
