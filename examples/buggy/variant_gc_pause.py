#!/usr/bin/env python3
"""Correct, written another way: a stop-the-world pause of 200 ms every 1-3 s (a garbage collector). While it
lasts no thread starts a downstream request, writes an answer or begins a call; the deadlines keep running.

Where it ships: every runtime with a tracing collector (the JVM before ZGC, Go under memory pressure, .NET,
CPython's cyclic collector on a large heap).

Permitted by docs/protocol.md: "`budget_ms`: the time budget, counted from when you read the line. Turn it into
one absolute deadline.", "bound every request by it", and "an answer after the budget but within 1.5 s still
passes the `answer-within-deadline` check": what the deadline bounds is the executor's own business, and a
pause only spends some of it. X-Deadline-Ms stays the time left when the request is sent (computed after the
pause).

Expected: passes every check under --profile all (a pause that spends a call's whole budget makes it answer
timeout_not_started, which is true).
"""

import random
import threading
import time

from correct import cp, serve

PAUSE_S = 0.200
WORLD = threading.Lock()
ORIGINAL_SEND = cp.Downstream.send
ORIGINAL_EXECUTE = cp.Executor.execute
ORIGINAL_WIRE_SEND = cp.Wire.send


def safepoint():
    with WORLD:
        pass


def collector():
    while True:
        time.sleep(random.uniform(1.0, 3.0))
        with WORLD:
            time.sleep(PAUSE_S)


def send(self, template, arguments, ctx, key=None):
    safepoint()
    return ORIGINAL_SEND(self, template, arguments, ctx, key)


def execute(self, message, received):
    safepoint()
    return ORIGINAL_EXECUTE(self, message, received)


def wire_send(self, message):
    safepoint()
    ORIGINAL_WIRE_SEND(self, message)


cp.Downstream.send = send
cp.Executor.execute = execute
cp.Wire.send = wire_send

if __name__ == "__main__":
    threading.Thread(target=collector, daemon=True).start()
    serve(__file__)
