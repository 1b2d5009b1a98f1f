#!/usr/bin/env python3
"""Correct, written another way: an asyncio program. The event loop reads stdin as a stream and hands each call to
`loop.run_in_executor(None, ...)`, asyncio's default thread pool (min(32, CPUs + 4) workers: 6 on two cores).
Calls beyond that wait in the pool's queue after their line was read, so their budget runs while they wait;
a call whose deadline passed in the queue is refused `timeout_not_started` before anything is sent.

Where it ships: every asyncio executor that wraps blocking client code with `run_in_executor` and the default
pool.

Permitted by docs/protocol.md: "`budget_ms`: the time budget, counted from when you read the line. Turn it into
one absolute deadline." and "5. **One deadline per call**: refuse to start after it (`timeout_not_started`)".
Nothing asks an executor to run every call it read at once.

Expected: passes every check under --profile all. A false-positive probe for bursts wider than the pool and for
answer-within-deadline with calls queued inside the executor.
"""

import asyncio
import json
import sys
import time

from correct import cp, serve


async def run():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=17 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    wire = cp.Wire()
    first = await reader.readline()
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

    def execute(message, received):
        try:
            return executor.execute(message, received)
        except Exception as error:
            cp.log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            return cp.fail(cp.Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)

    async def serve_one(message, received):
        envelope = await loop.run_in_executor(None, execute, message, received)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    tasks = set()
    while True:
        line = await reader.readline()
        if not line:
            break
        received = time.monotonic()
        try:
            message = json.loads(line)
            if message.get("type") != "execute":
                raise ValueError("unexpected message type %r" % message.get("type"))
        except Exception as error:
            wire.send({"type": "error", "message": "cannot read the message: %s" % error})
            continue
        task = asyncio.create_task(serve_one(message, received))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.gather(*tasks)
    return 0


def main():
    return asyncio.run(run())


cp.main = main

if __name__ == "__main__":
    serve(__file__)
