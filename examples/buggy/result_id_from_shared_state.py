"""The `result` line's id comes from executor-wide "current request" state, not from the request the worker ran.

Behaviour: the reader stores each execute message it reads in `executor.current` (the "request context"), and the
worker that finishes a call echoes `executor.current["id"]`. One call at a time, that is the right id; with calls
in flight together (a burst, a pipelined corpus step), a call that finishes after the next line was read answers
under the newer request's id: one id answered twice, another never.

Where it ships: request handlers that keep the request context in an instance attribute or a module global
(`self.current_request`, `g.request`, a thread-unsafe singleton) instead of a local or a `contextvars.ContextVar`,
tested only with one call at a time.

Doc sentence it breaks: docs/protocol.md, execute: "`id`: a string, unique for the life of the process. Echo it in
the result." and result: "Exactly one per execute".
"""

import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

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
    except Exception as error:
        wire.send({"type": "error", "message": str(error)})
        cp.log(str(error))
        return 1
    wire.send({"type": "capabilities", "protocol": cp.PROTOCOL, "name": cp.NAME,
               "version": "0.1.0", "tools": sorted(executor.tools), "features": ["pause"]})

    def run(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        # BUG: the id of the request being read most recently, not of the one this worker ran.
        wire.send({"type": "result", "id": executor.current["id"], "envelope": envelope})

    with ThreadPoolExecutor(max_workers=64) as pool:
        for line in sys.stdin:
            received = time.monotonic()
            try:
                message = json.loads(line)
                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
            except Exception as error:
                wire.send({"type": "error", "message": "cannot read the message: %s" % error})
                continue
            executor.current = message  # the request context, for the answer
            pool.submit(run, message, received)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
