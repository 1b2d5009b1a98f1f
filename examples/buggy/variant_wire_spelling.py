#!/usr/bin/env python3
"""Correct, written another way: the protocol lines are spelled differently. Every JSON object's members come in
a random order (shuffled anew for every line, envelopes, results and details included), with spaces after `:`
and `,`, non-ASCII text escaped as `\\uXXXX` (ensure_ascii), and each `result` and the `capabilities` carry one
member the schemas do not list.

Where it ships: JSON libraries that do not keep insertion order (Go maps, many C and Java encoders), ASCII-only
encoders, and adapters that add their own bookkeeping to a message.

Permitted by docs/protocol.md: "One message per line: a JSON object on a single line, UTF-8, ending with `\\n`"
(RFC 8259: an object is an unordered collection; `\\u00e9` and `é` are the same string), and "Receivers ignore
members they do not know (a later `callproof/1.x` may add optional ones)"; docs/protocol/result.schema.json and
capabilities.schema.json do not close their objects. Inside the envelope nothing is added (its schema is
closed); only order and spelling change.

Expected: passes every check under --profile all. A false-positive probe for any place the harness compares
serialised text rather than JSON values ("byte for byte" in resource-refusal-uniform, task-refusal-uniform,
task-final-stable, replay-same-result) or reads members by position.
"""

import json
import random
import sys

from correct import cp, serve


def shuffled(value):
    if isinstance(value, dict):
        items = [(key, shuffled(item)) for key, item in value.items()]
        random.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [shuffled(item) for item in value]
    return value


class Wire(cp.Wire):
    def send(self, message):
        message = dict(message)
        if message.get("type") == "result":
            message["executor_note"] = "answered by %s" % cp.NAME
        elif message.get("type") == "capabilities":
            message["build"] = {"language": "python", "variant": "wire-spelling"}
        line = json.dumps(shuffled(message), allow_nan=False, ensure_ascii=True, separators=(", ", ": ")) + "\n"
        with self.lock:
            sys.stdout.write(line)
            sys.stdout.flush()


cp.Wire = Wire

if __name__ == "__main__":
    serve(__file__)
