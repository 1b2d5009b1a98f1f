"""Protocol lines are read with a 64 KiB line limit; a longer line is refused with an `error` message.

Behaviour: the protocol loop reads stdin the way an asyncio `StreamReader` does with its default `limit=2**16`:
a line longer than 64 KiB is not read at all ("Separator is not found, and chunk exceed the limit"), so the
executor sends an id-less `{"type": "error"}` message, drops the rest of the line and reads on. Calls whose argument
text is below the 1 MiB argument limit but above 64 KiB never reach the decoder, and neither do the over-limit
texts that should be answered `invalid_arguments` (`too_large`) in an envelope.

Where it ships: asyncio-based stdio servers and subprocess bridges (MCP stdio transports, agent tool runners) that
read with `StreamReader.readline()` and never raise `limit=`; the 64 KiB ceiling surfaces only with large tool
arguments.

Doc sentence it breaks: docs/protocol.md, Transport: "Lines are at most 16 MiB." (and docs/errors.md: argument text
up to 1 MiB is decoded; a larger one is `invalid_arguments` with `reason: too_large`, an envelope, never an `error`
message: "A tool call that fails is never an `error` message").
"""

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from correct import cp, serve

LINE_LIMIT = 64 * 1024  # asyncio.streams._DEFAULT_LIMIT


def _lines(stream):
    """Yields decoded lines; a line over LINE_LIMIT is yielded as None after the rest of it was skipped."""
    while True:
        # BUG: a fixed 64 KiB line limit (asyncio's default) instead of the protocol's 16 MiB.
        chunk = stream.readline(LINE_LIMIT + 1)
        if not chunk:
            return
        if len(chunk) > LINE_LIMIT and not chunk.endswith(b"\n"):
            while True:  # skip the rest of the overlong line
                rest = stream.readline(LINE_LIMIT)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield chunk.decode("utf-8")


def main():
    wire = cp.Wire()
    first = sys.stdin.buffer.readline()
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
    cp.log("serving session %s against %s" % (hello.get("session"), hello.get("downstream_url")))

    def run(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    with ThreadPoolExecutor(max_workers=64) as pool:
        for line in _lines(sys.stdin.buffer):
            received = time.monotonic()
            if line is None:
                wire.send({"type": "error", "message": "cannot read the message: Separator is not found, and "
                           "chunk exceed the limit"})
                continue
            try:
                message = json.loads(line)
                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
            except Exception as error:
                wire.send({"type": "error", "message": "cannot read the message: %s" % error})
                continue
            pool.submit(run, message, received)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
