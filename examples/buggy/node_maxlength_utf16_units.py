#!/usr/bin/env python3
"""Bug: the Node executor's JSON Schema `minLength`/`maxLength` count `String.length`, UTF-16 code units,
instead of characters: 101 emoji in a 200-character `reason` are 202 units and refused.

Where it ships: every hand-written JavaScript validator (and older ones: `"😀".length === 2`). JSON Schema
2020-12: the length of a string is its number of characters (code points).

Expected catch: a call whose string holds astral characters, within its maxLength in characters but not in
UTF-16 units, that expects ok (expectations).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = (
    "        case 'minLength': if (typeof v === 'string' && [...v].length < rule) add(); break;\n"
    "        case 'maxLength': if (typeof v === 'string' && [...v].length > rule) add(); break;\n"
)

NEW = (
    '        // BUG: String.length counts UTF-16 code units; JSON Schema counts characters (code points).\n'
    "        case 'minLength': if (typeof v === 'string' && v.length < rule) add(); break;\n"
    "        case 'maxLength': if (typeof v === 'string' && v.length > rule) add(); break;\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
