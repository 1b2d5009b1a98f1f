"""VARIANT: protocol lines are written as raw UTF-8 instead of ASCII with `\\uXXXX` escapes.

Behaviour: every message is serialized with `ensure_ascii=False` and written as UTF-8 bytes to stdout's binary
buffer (the example escapes every non-ASCII character). A refusal that names a tool `réfund_order` carries the
`é` as the two bytes C3 A9 on the wire.

Where it ships: Go's encoding/json, serde_json, Node's JSON.stringify and most non-Python encoders write non-ASCII
characters raw by default.

Relies on docs/protocol.md (Transport): "One message per line: a JSON object on a single line, UTF-8, ending with
`\\n`." (RFC 8259 allows either spelling of a non-ASCII character.)
"""

import json
import sys

from correct import cp, serve


def send(self, message):
    # VARIANT: raw UTF-8 on the wire (ensure_ascii=False). Lone surrogates cannot come from the harness's lines
    # (Rust strings), but are written escaped should one appear, so a line is always valid UTF-8.
    line = json.dumps(message, allow_nan=False, separators=(",", ":"), ensure_ascii=False) + "\n"
    data = line.encode("utf-8", "backslashreplace")
    with self.lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
