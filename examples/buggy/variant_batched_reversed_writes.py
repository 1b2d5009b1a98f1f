#!/usr/bin/env python3
"""Correct, written another way: answers go through one writer thread that gathers every answer finished within
15 ms of the first, and writes them in one `write` call, in reverse order of completion (last finished first).

Where it ships: executors with an output queue and a flusher (buffered writers, batching for throughput); the
order of answers on the wire is then unrelated to the order of requests.

Permitted by docs/protocol.md: "results of different requests may come in any order" and "**One message per
line**": several lines in one write are still one message per line. No answer waits more than 15 ms, far inside
every budget.

Expected: passes every check under --profile all. A false-positive probe for the harness's reader (several lines
in one read) and for any check that assumes answers in request order.
"""

import os
import queue
import sys
import threading

from correct import cp, serve

GATHER_S = 0.015
LINES = queue.Queue()


def writer():
    out = sys.stdout.fileno()
    while True:
        batch = [LINES.get()]
        while True:
            try:
                batch.append(LINES.get(timeout=GATHER_S))
            except queue.Empty:
                break
            if len(batch) >= 64:
                break
        data = "".join(reversed(batch)).encode("utf-8")
        while data:
            data = data[os.write(out, data):]


def send(self, message):
    line = cp.json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n"
    if message.get("type") == "capabilities":
        sys.stdout.write(line)
        sys.stdout.flush()
        return
    LINES.put(line)  # the writer thread owns stdout from here on


cp.Wire.send = send
threading.Thread(target=writer, daemon=True).start()

ORIGINAL_MAIN = cp.main


def main():
    code = ORIGINAL_MAIN()
    # stdin closed and every call answered into the queue: let the writer drain it before exiting.
    while not LINES.empty():
        cp.time.sleep(GATHER_S)
    cp.time.sleep(3 * GATHER_S)
    return code


cp.main = main

if __name__ == "__main__":
    serve(__file__)
