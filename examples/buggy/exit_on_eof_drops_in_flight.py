#!/usr/bin/env python3
"""Bug: every call runs on a daemon thread of its own, and the read loop returns when stdin ends, so the process
exits with the calls still in flight: they are never answered, although their side effects may have happened.

Where it ships: "fire a thread per request" servers (`threading.Thread(daemon=True)` so that Ctrl-C works), stdio
loops whose `main` returns at EOF. docs/protocol.md: "The harness closes your stdin when it is done with you.
Answer what is still in flight, then exit."

Expected checks: none by name: the unanswered call is a protocol break (exit code 3) on
internal/input_ends_with_call_in_flight. Written blind in round 5 (examples/buggy/BLIND5.md) and again in round 6,
missed both times before the harness could close the input with a call in flight.
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
        if hello.get("type") != "hello":
            raise ValueError("the first message must be hello")
        if hello.get("protocol") != cp.PROTOCOL:
            raise ValueError("protocol %r is not supported; this executor speaks %s" % (hello.get("protocol"),
                                                                                         cp.PROTOCOL))
        executor = cp.Executor(hello)
    except Exception as error:  # tell the harness, then stop
        wire.send({"type": "error", "message": str(error)})
        cp.log(str(error))
        return 1
    wire.send({"type": "capabilities", "protocol": cp.PROTOCOL, "name": cp.NAME,
               "version": "0.1.0", "tools": sorted(executor.tools), "features": ["pause"]})
    cp.log("serving session %s against %s" % (hello.get("session"), hello.get("downstream_url")))

    def serve_one(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:  # a bug here: answer internal_error rather than nothing
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    for line in sys.stdin:
        received = time.monotonic()
        try:
            message = json.loads(line)
            if message.get("type") != "execute":
                raise ValueError("unexpected message type %r" % message.get("type"))
        except Exception as error:
            wire.send({"type": "error", "message": "cannot read the message: %s" % error})
            continue
        # BUG: a daemon thread per call, never joined: at the end of stdin the process exits under it.
        threading.Thread(target=serve_one, args=(message, received), daemon=True).start()
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
