"""Bug: at the end of stdin, the calls still in flight are failed fast instead of answered.

`main` gets a "graceful shutdown": when stdin closes, every call that has not been answered yet is answered at
once with the catch-all `internal_error` envelope the example builds for an unexpected failure (`sent: false`,
"the executor is shutting down"), the worker's real answer is dropped when it comes, and the process exits. A
refund that had already been sent and committed is reported as never sent.

Doc sentence broken: docs/protocol.md (Process faults) "The call is in flight: answer it, then exit (the end of
input is the harness saying no more calls will come, not that the ones you started no longer matter)";
docs/errors.md internal_error "When `sent` is false nothing was applied and a retry of the same business
request executes again".

Where it ships: servers that on SIGTERM / end of input fail pending requests with a retryable or internal error
so the caller can "retry elsewhere" (shutdown hooks that cancel in-flight futures, asyncio task cancellation
mapped to a generic error envelope).

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from correct import cp, serve


def main():
    wire = cp.Wire()
    first = sys.stdin.readline()
    try:
        hello = cp.json.loads(first)
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
    cp.log("serving session %s against %s" % (hello.get("session"), hello.get("downstream_url")))

    in_flight, closed, guard = {}, set(), threading.Lock()

    def answer(message, envelope):
        with guard:
            if message["id"] in closed:
                return  # already failed at shutdown
            closed.add(message["id"])
            in_flight.pop(message["id"], None)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    def shutdown_envelope(message):
        meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                "attempt": message["attempt"], "replayed": False}
        return cp.fail(cp.Refusal("internal_error", "the executor is shutting down", sent=False), meta)

    def serve_one(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        answer(message, envelope)

    pool = ThreadPoolExecutor(max_workers=64)
    for line in sys.stdin:
        received = time.monotonic()
        try:
            message = cp.json.loads(line)
            if message.get("type") != "execute":
                raise ValueError("unexpected message type %r" % message.get("type"))
        except Exception as error:
            wire.send({"type": "error", "message": "cannot read the message: %s" % error})
            continue
        with guard:
            in_flight[message["id"]] = message
        pool.submit(serve_one, message, received)
    # BUG: graceful shutdown fails whatever is still running instead of waiting for it.
    with guard:
        pending = list(in_flight.values())
    if pending:
        cp.log("stdin closed: failing %d call(s) in flight" % len(pending))
    for message in pending:
        answer(message, shutdown_envelope(message))
    pool.shutdown(wait=False, cancel_futures=True)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
