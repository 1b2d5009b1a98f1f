#!/usr/bin/env python3
"""Bug: the Node executor decides that a number literal is an integer with `Number.isSafeInteger`, so `-0`
counts as an integer (`Number.isInteger(-0)` is true) and an integer literal between 2^53 and 2^64 does not:
`amount: -0` is refused by `minimum` instead of `type`, and `amount: 2^60` by `type` instead of `maximum`.

Where it ships: every JavaScript validator that types numbers after JSON.parse (`Number.isInteger`, zod's
`.int()`, ajv on parsed values). docs/errors.md: `-0`, `1e30` or an integer beyond 64 bits is the wrong type
before it is below a minimum or above a maximum; an integer within 64 bits is an integer.

Expected catch: the corpus's `-0` and big-integer cases (corpus-details on `keyword`).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_integer_by_safe_range.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_integer_by_safe_range.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
