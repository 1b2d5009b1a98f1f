#!/usr/bin/env python3
"""Correct, written another way: every message it sends carries members the schemas do not list. `capabilities`
adds `vendor`, `build` and `limits`, lists its tools in catalog order (unsorted) and leaves `features` out; every
`result` adds `elapsed_ms`, `trace` (an object) and `status` (a string that repeats the envelope's outcome).

Where it ships: executors that report timing and tracing alongside their answers, and ones written for a later
`callproof/1.x`.

Permitted by docs/protocol.md: "Receivers ignore members they do not know (a later `callproof/1.x` may add
optional ones). Senders send the members the schemas list." The capabilities and result schemas do not forbid
other members, and `features` is not required ("`features`, each optional").

Expected: passes every check under --profile all (no `pause` feature, so pause scenarios are skipped).
"""

import json
import sys
import time

from correct import cp, serve

STARTED = time.monotonic()


def send(self, message):
    message = dict(message)
    if message.get("type") == "capabilities":
        message.pop("features", None)
        message["tools"] = list(dict.fromkeys(message["tools"]))
        message.update(vendor="example.org", build={"commit": "0" * 40, "dirty": False},
                       limits={"max_in_flight": 64, "max_line_bytes": 16 * 1024 * 1024})
    elif message.get("type") == "result":
        message.update(elapsed_ms=int((time.monotonic() - STARTED) * 1000),
                       trace={"span": message["id"], "sampled": True},
                       status="ok" if message["envelope"].get("ok") else message["envelope"]["error"]["code"])
    line = json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n"
    with self.lock:
        sys.stdout.write(line)
        sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
