"""Bug: the protocol loop reads stdin in chunks and splits them with str.splitlines(), which also breaks lines at
U+2028, U+2029, U+0085 (and \\v \\f \\x1c-\\x1e), characters JSON allows raw inside strings.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
import codecs
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from correct import cp, serve


def _lines(stream):
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending = ""
    while True:
        chunk = stream.read1(65536)
        pending += decoder.decode(chunk, final=not chunk)
        # BUG(stdin_splitlines_unicode): splitlines() splits at every Unicode line boundary, not only at "\n"
        parts = pending.splitlines(keepends=True)
        pending = parts.pop() if parts and chunk and not parts[-1].endswith(("\n", "\r", "\u2028", "\u2029",
                                                                               "\x85", "\v", "\f", "\x1c",
                                                                               "\x1d", "\x1e")) else ""
        yield from parts
        if not chunk:
            return


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
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    with ThreadPoolExecutor(max_workers=64) as pool:
        for line in _lines(sys.stdin.buffer):
            received = time.monotonic()
            try:
                message = json.loads(line)
                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
            except Exception as error:
                wire.send({"type": "error", "message": "cannot read the message: %s" % error})
                continue
            pool.submit(serve_one, message, received)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
