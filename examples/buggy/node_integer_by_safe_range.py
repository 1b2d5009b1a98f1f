#!/usr/bin/env python3
"""Bug: the Node executor decides that a number literal is an integer with `Number.isSafeInteger`, so `-0`
counts as an integer (`Number.isInteger(-0)` is true) and an integer literal between 2^53 and 2^64 does not:
`amount: -0` is refused by `minimum` instead of `type`, and `amount: 2^60` by `type` instead of `maximum`.

Where it ships: every JavaScript validator that types numbers after JSON.parse (`Number.isInteger`, zod's
`.int()`, ajv on parsed values). docs/errors.md: `-0`, `1e30` or an integer beyond 64 bits is the wrong type
before it is below a minimum or above a maximum; an integer within 64 bits is an integer.

Expected catch: the corpus's `-0` and big-integer cases (corpus-details on `keyword`).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = (
    "    this.int = /^-?(0|[1-9][0-9]*)$/.test(text) && text !== '-0' &&\n"
    '      BigInt(text) >= -(2n ** 63n) && BigInt(text) <= 2n ** 64n - 1n;\n'
)

NEW = (
    '    // BUG: an integer literal is one Number.isSafeInteger accepts: -0 counts, 2^53 < n < 2^64 does not.\n'
    '    this.int = /^-?(0|[1-9][0-9]*)$/.test(text) && Number.isSafeInteger(this.value);\n'
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
