#!/usr/bin/env python3
"""Bug: the Node executor's JSON parser builds objects as `{}` instead of `Object.create(null)`, so a
member named `__proto__` sets the object's prototype instead of adding a property: it is in no `Object.keys`, so
`additionalProperties: false` never sees it, and the call runs with the member silently dropped.

Where it ships: hand-written and streaming JSON parsers in JavaScript, and every `obj[key] = value` merge of
untrusted keys into a plain object (JSON.parse itself gets `__proto__` right, which is why the bug hides until
someone replaces it). docs/errors.md: an unknown field is schema_violation (`unexpected` lists it).

Expected catch: a malformed-corpus case with a `__proto__` member (malformed-input-refused, corpus-codes).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_proto_member_vanishes.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_proto_member_vanishes.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
