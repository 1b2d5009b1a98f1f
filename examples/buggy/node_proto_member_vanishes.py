#!/usr/bin/env python3
"""Bug: the Node executor's JSON parser builds objects as `{}` instead of `Object.create(null)`, so a
member named `__proto__` sets the object's prototype instead of adding a property: it is in no `Object.keys`, so
`additionalProperties: false` never sees it, and the call runs with the member silently dropped.

Where it ships: hand-written and streaming JSON parsers in JavaScript, and every `obj[key] = value` merge of
untrusted keys into a plain object (JSON.parse itself gets `__proto__` right, which is why the bug hides until
someone replaces it). docs/errors.md: an unknown field is schema_violation (`unexpected` lists it).

Expected catch: a malformed-corpus case with a `__proto__` member (malformed-input-refused, corpus-codes).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "    if (c === '{') { open(Object.create(null)); continue; }\n"

NEW = (
    '    // BUG: a plain object: a member named __proto__ sets the prototype instead of a property.\n'
    "    if (c === '{') { open({}); continue; }\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
