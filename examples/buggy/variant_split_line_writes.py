#!/usr/bin/env python3
"""Correct, written another way: each protocol line reaches stdout in three unbuffered writes (the first half of
the JSON, the rest, then the newline), 5 ms apart, under one lock so lines never interleave.

Where it ships: `print(text, end="")` followed by `print()`, Node's `write(json)` then `write("\\n")`, and any
writer whose buffer is smaller than a line: the reader sees a line arrive in pieces.

Permitted by docs/protocol.md: "**One message per line**: a JSON object on a single line, UTF-8, ending with
`\\n`": a line is delimited by its newline, not by the writes that carried it.

Expected: passes every check under --profile all.
"""

import json
import os
import sys
import time

from correct import cp, serve

GAP_S = 0.005


def send(self, message):
    data = (json.dumps(message, allow_nan=False, separators=(",", ":"))).encode("utf-8")
    half = len(data) // 2
    out = sys.stdout.fileno()
    with self.lock:
        for piece in (data[:half], data[half:], b"\n"):
            while piece:
                piece = piece[os.write(out, piece):]
            time.sleep(GAP_S)


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
