#!/usr/bin/env python3
"""Bug: the Node executor's JSON Schema `minLength`/`maxLength` count `String.length`, UTF-16 code units,
instead of characters: 101 emoji in a 200-character `reason` are 202 units and refused.

Where it ships: every hand-written JavaScript validator (and older ones: `"😀".length === 2`). JSON Schema
2020-12: the length of a string is its number of characters (code points).

Expected catch: a call whose string holds astral characters, within its maxLength in characters but not in
UTF-16 units, that expects ok (expectations).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_maxlength_utf16_units.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_maxlength_utf16_units.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
