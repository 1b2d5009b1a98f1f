#!/usr/bin/env python3
"""Bug: the Node executor reports `invalid_json`'s `line`, `column` and `offset` in UTF-16 units of the
string instead of UTF-8 bytes, so after any non-ASCII character they point too early.

Where it ships: JavaScript string indices used as byte offsets (`error.pos` of a parser over a JS string).
docs/errors.md: `line` and `column` (1-based, in bytes) and `offset` (0-based byte).

Expected catch: a corpus case with non-ASCII text before the syntax error, its position pinned (corpus-details).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = (
    "  const prefix = Buffer.from(text.slice(0, at), 'utf8');\n"
    '  const newlines = prefix.reduce((count, byte) => count + (byte === 10 ? 1 : 0), 0);\n'
    '  const lastNewline = prefix.lastIndexOf(10);\n'
)

NEW = (
    "  // BUG: line, column and offset counted in the string's UTF-16 units, not in UTF-8 bytes.\n"
    '  const prefix = text.slice(0, at);\n'
    "  const newlines = prefix.split('\\n').length - 1;\n"
    "  const lastNewline = prefix.lastIndexOf('\\n');\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
