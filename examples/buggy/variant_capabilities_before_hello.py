#!/usr/bin/env python3
"""Correct, written another way: the executor announces itself at start-up, before it reads `hello`: its
`capabilities` line lists the nine conformance-app tools it hard-codes. Then it reads `hello` and builds its
tools from the catalog as the example does (refusing the session with an `error` line if the protocol is not
its own).

Where it ships: servers that greet first (SMTP, many line protocols), and executors with a fixed tool list.

Permitted by docs/protocol.md: "`capabilities`: Your first line, within 20 s of `hello`" (no rule says it must
come after `hello`), and "`catalog`: ... Build your tools from it or hard-code the same contract".

Expected: passes every check under --profile all.
"""

import json
import sys
import time

from correct import cp, serve

TOOLS = ["delete_account", "export_account_data", "get_order", "get_weather", "refund_order", "send_email",
         "set_preference", "task_cancel", "task_status"]


def main():
    wire = cp.Wire()
    wire.send({"type": "capabilities", "protocol": cp.PROTOCOL, "name": cp.NAME, "version": "0.1.0",
               "tools": TOOLS, "features": ["pause"]})
    first = sys.stdin.readline()
    try:
        hello = json.loads(first)
        if hello.get("type") != "hello" or hello.get("protocol") != cp.PROTOCOL:
            raise ValueError("this executor speaks %s" % cp.PROTOCOL)
        executor = cp.Executor(hello)
    except Exception as error:
        wire.send({"type": "error", "message": str(error)})
        return 1

    def serve_one(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    with cp.ThreadPoolExecutor(max_workers=64) as pool:
        for line in sys.stdin:
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
