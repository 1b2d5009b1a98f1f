#!/usr/bin/env python3
"""Correct, written another way: no pool; every `execute` line gets a thread of its own, started as soon as the
line is read. When stdin closes it joins every thread still running, then exits.

Where it ships: the simplest concurrent executor anyone writes first.

Permitted by docs/protocol.md: "many in flight", "answers in any order", and "The harness closes your stdin when
it is done with you. Answer what is still in flight, then exit."

Expected: passes every check under --profile all.
"""

import json
import sys
import threading
import time

from correct import cp, serve


def main():
    wire = cp.Wire()
    first = sys.stdin.readline()
    try:
        hello = json.loads(first)
        if hello.get("type") != "hello" or hello.get("protocol") != cp.PROTOCOL:
            raise ValueError("this executor speaks %s" % cp.PROTOCOL)
        executor = cp.Executor(hello)
    except Exception as error:
        wire.send({"type": "error", "message": str(error)})
        return 1
    wire.send({"type": "capabilities", "protocol": cp.PROTOCOL, "name": cp.NAME, "version": "0.1.0",
               "tools": sorted(executor.tools), "features": ["pause"]})

    def serve_one(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    threads = []
    for line in sys.stdin:
        received = time.monotonic()
        try:
            message = json.loads(line)
            if message.get("type") != "execute":
                raise ValueError("unexpected message type %r" % message.get("type"))
        except Exception as error:
            wire.send({"type": "error", "message": "cannot read the message: %s" % error})
            continue
        thread = threading.Thread(target=serve_one, args=(message, received))
        thread.start()
        threads.append(thread)
        threads = [t for t in threads if t.is_alive()]
    for thread in threads:
        thread.join()
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
