#!/usr/bin/env python3
"""Correct, written another way: two worker threads (one per core) run the calls, reading every line as it
arrives; finished answers go on a queue that one writer thread drains to stdout, in completion order.

Where it ships: a worker pool sized to the cores with a single stdout writer (Go's worker pool and writer
goroutine, Java's fixed thread pool and a BlockingQueue), so no two threads ever write the pipe.

Permitted by docs/protocol.md: "answers in any order" and "results of different requests may come in any
order"; "`budget_ms`: the time budget, counted from when you read the line": a call waiting for a worker spends
its own budget, and answers timeout_not_started if it runs out first.

Expected: passes every check under --profile all.
"""

import queue
import threading
from concurrent.futures import ThreadPoolExecutor

from correct import cp, serve

WORKERS = 2
OUTBOX = queue.Queue()
ORIGINAL_WIRE_SEND = cp.Wire.send
ORIGINAL_MAIN = cp.main


def writer(wire):
    while True:
        message = OUTBOX.get()
        ORIGINAL_WIRE_SEND(wire, message)
        OUTBOX.task_done()


def wire_send(self, message):
    if not getattr(self, "writer_started", False):
        self.writer_started = True
        threading.Thread(target=writer, args=(self,), daemon=True).start()
    OUTBOX.put(message)


def pool(max_workers):
    return ThreadPoolExecutor(max_workers=WORKERS)


def main():
    status = ORIGINAL_MAIN()
    OUTBOX.join()
    return status


cp.Wire.send = wire_send
cp.ThreadPoolExecutor = pool
cp.main = main

if __name__ == "__main__":
    serve(__file__)
