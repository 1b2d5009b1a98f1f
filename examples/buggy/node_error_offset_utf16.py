#!/usr/bin/env python3
"""Bug: the Node executor reports `invalid_json`'s `line`, `column` and `offset` in UTF-16 units of the
string instead of UTF-8 bytes, so after any non-ASCII character they point too early.

Where it ships: JavaScript string indices used as byte offsets (`error.pos` of a parser over a JS string).
docs/errors.md: `line` and `column` (1-based, in bytes) and `offset` (0-based byte).

Expected catch: a corpus case with non-ASCII text before the syntax error, its position pinned (corpus-details).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_error_offset_utf16.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_error_offset_utf16.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
