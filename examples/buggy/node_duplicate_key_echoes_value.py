#!/usr/bin/env python3
"""Bug: the Node executor's duplicate_key refusal quotes the value that would have been kept, to help the model
repair its call; for send_email with a repeated `body` it repeats the x-sensitive text.

Where it ships: "helpful" error messages that quote offending values, with the x-sensitive filter applied only in
the schema-violation path. docs/errors.md: "no failure repeats the value the caller put there, or any part of it:
not in `message`, not in `details`".

Expected checks: no-secret-leak, only with a repeated send_email.body (8 or more characters) in a raw text.
Written blind in round 4 (examples/buggy/BLIND4.md).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = (
    "    throw new Refusal('invalid_arguments', 'tool arguments repeat a key',\n"
    "      { reason: 'duplicate_key', path: pointer(parsed.duplicate) });\n"
)

NEW = (
    "    // BUG: the message quotes the value that was kept (the last one), whatever the member.\n"
    "    const kept = parsed.duplicate.reduce((node, part) => (node == null ? node : node[part]), parsed.value);\n"
    "    throw new Refusal('invalid_arguments',\n"
    "      `tool arguments repeat the key ${pointer(parsed.duplicate)}; which value was meant is ambiguous "
    "(the last one is ${write(kept)})`,\n"
    "      { reason: 'duplicate_key', path: pointer(parsed.duplicate) });\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
