"""A call naming an unknown tool is answered with a protocol `error` message instead of an envelope.

Behaviour: the executor carries MCP's mapping over to callproof/1: in MCP, `tool_not_found` is the one failure
answered as a JSON-RPC error (-32602, invalid params) rather than a tool result, so this port answers it with
`{"type": "error", "id": ..., "message": "unknown tool ..."}`, the line protocol's nearest thing to a JSON-RPC
error, instead of a `result` with a `tool_not_found` envelope. Every other failure stays an envelope.

Where it ships: JSON-RPC / MCP servers ported to (or bridged onto) another line protocol, where "unknown method /
unknown tool" is a transport-level error by habit.

Doc sentence it breaks: docs/protocol.md, error: "Only for messages you cannot read or accept ... A tool call that
fails is never an `error` message: it is an envelope." (docs/errors.md makes the MCP mapping MCP-only: "In MCP this
is the one failure answered as a JSON-RPC error").
"""

import json
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
        if not envelope["ok"] and envelope["error"]["code"] == "tool_not_found":
            # BUG: MCP answers an unknown tool as a JSON-RPC error (-32602); so does this port, as an `error` line.
            wire.send({"type": "error", "id": message["id"],
                       "message": "invalid params: unknown tool %r" % message["call"]["name"][:64]})
            return
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
            pool.submit(run, message, received)
    return 0


cp.main = main

if __name__ == "__main__":
    serve(__file__)
