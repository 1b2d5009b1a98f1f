#!/usr/bin/env python3
"""Correct, written another way: every string on the wire (member names and values, the envelope's result
included) is written with escapes wherever JSON allows one: every character other than an ASCII letter or
digit as `\\uXXXX` (uppercase hex, surrogate pairs above U+FFFF), and `/` as `\\/`.

Where it ships: JSON writers hardened for embedding in HTML or for 7-bit transports (PHP's `json_encode`
escapes `/` by default; several Java and .NET writers escape every non-alphanumeric character).

Permitted by docs/protocol.md: "a JSON object on a single line, UTF-8, ending with `\\n`", and RFC 8259 §7:
"Any character may be escaped." A reader that decodes JSON sees the same strings.

Expected: passes every check under --profile all. A false-positive probe for any check that reads the raw line
instead of the decoded message.
"""

import json
import sys

from correct import cp, serve


def escape(text):
    out = []
    for char in text:
        code = ord(char)
        if char.isascii() and char.isalnum():
            out.append(char)
        elif char == "/":
            out.append("\\/")
        elif code > 0xFFFF:
            code -= 0x10000
            out.append("\\u%04X\\u%04X" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
        else:
            out.append("\\u%04X" % code)
    return '"' + "".join(out) + '"'


def write(value):
    if isinstance(value, dict):
        return "{" + ",".join(escape(key) + ":" + write(item) for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(write(item) for item in value) + "]"
    if isinstance(value, str):
        return escape(value)
    return json.dumps(value, allow_nan=False)


def send(self, message):
    line = write(message) + "\n"
    with self.lock:
        sys.stdout.write(line)
        sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
