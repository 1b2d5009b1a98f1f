#!/usr/bin/env python3
"""Correct, written another way: every protocol line is serialized with spaces after `,` and `:`, a leading
space before the object, and members in another order (`id` and `envelope` before `type`; in the envelope `meta`
first and `ok` last; every other object's members in reverse order), non-ASCII escaped as `\\uXXXX`.

Where it ships: executors that use their language's default JSON writer (Python's `json.dumps` puts spaces
after separators; Go's and Java's libraries order members their own way).

Permitted by docs/protocol.md: "**One message per line**: a JSON object on a single line, UTF-8, ending with
`\\n`. Every message has a string member `type`." JSON (RFC 8259) allows insignificant whitespace before and
after any value or separator, escapes of any character as `\\u`, and members in any order.

Expected: passes every check under --profile all. A false-positive probe for the harness's line reader.
"""

import json
import sys

from correct import cp, serve


def reordered(value):
    if isinstance(value, dict):
        items = [(key, reordered(item)) for key, item in value.items()]
        return dict(reversed(items))
    if isinstance(value, list):
        return [reordered(item) for item in value]
    return value


def send(self, message):
    line = " " + json.dumps(reordered(message), allow_nan=False, ensure_ascii=True) + "\n"
    with self.lock:
        sys.stdout.write(line)
        sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
