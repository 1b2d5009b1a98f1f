"""Past 4 calls in flight, the executor sheds load: it answers `dependency_unavailable` at once instead of queueing.

Behaviour: the protocol loop guards its worker pool with a non-blocking semaphore of 4. A call read while 4 others
are running is not queued: it is answered at once with `dependency_unavailable` (`reason: unavailable`,
"retry later"), without running anything. One call at a time, or a few, nothing changes; a burst of identical
calls, or a pipelined step of many, gets refusals that say the downstream was unusable when the executor was
merely busy.

Where it ships: load-shedding middleware in tool servers and API gateways (`semaphore.acquire(blocking=False)` ->
503 "overloaded"), concurrency limiters that reject instead of applying back-pressure.

Doc sentence it breaks: docs/protocol.md, execute: "You may read lines only as fast as you run them
(back-pressure, down to one call at a time)" (the reference: "The harness sees slower answers, never refusals"),
and docs/errors.md, dependency_unavailable: "the downstream (or the system of record ...) could not be used", not
the executor's own load.
"""

import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from correct import cp, serve

MAX_IN_FLIGHT = 4


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

    slots = threading.BoundedSemaphore(MAX_IN_FLIGHT)

    def run(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        slots.release()
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

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
            # BUG: load shedding: a call past MAX_IN_FLIGHT is refused at once instead of waiting its turn.
            if not slots.acquire(blocking=False):
                meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                        "attempt": message["attempt"], "replayed": False}
                envelope = cp.fail(cp.Refusal("dependency_unavailable", "the service is overloaded; retry later",
                                              reason="unavailable"), meta)
                wire.send({"type": "result", "id": message["id"], "envelope": envelope})
                continue
            pool.submit(run, message, received)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
