#!/usr/bin/env python3
"""Correct, written another way: back-pressure with one call in flight. The executor reads a line, runs that
call to its end, answers it, and only then reads the next line; every call's budget counts from when its line
was read (as docs/protocol.md says), so a call that waited in the pipe (unread) has its whole budget when it
starts.

Where it ships: the simplest stdio servers (a read-eval-answer loop), and any executor run with a concurrency
limit of 1 to protect a fragile downstream.

Permitted by docs/protocol.md: "`budget_ms`: the time budget, counted from when you read the line", and the
reference executor's own description of the same behaviour with N = 64: "**Back-pressure:** at most
`--max-in-flight` calls run at once; past that it does not read the next line until one finishes, so memory
... and downstream connections stay bounded however many calls are pipelined. The harness sees slower answers,
never refusals." Nothing in the docs sets a minimum for that limit.

Expected: passes every check under --profile all. A false-positive probe for bursts (never overlapping here) and
for answer-within-deadline (scenarios/burst_of_slow_reads.toml here): the harness cannot see when a line was
read, so it times a call queued behind others from the latest answer before its own.
"""

import concurrent.futures

from correct import cp, serve


class Inline:
    """A pool that runs each call in the reading thread: the next line is read when this call has answered."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, function, *args):
        future = concurrent.futures.Future()
        future.set_result(function(*args))
        return future


cp.ThreadPoolExecutor = Inline

if __name__ == "__main__":
    serve(__file__)
