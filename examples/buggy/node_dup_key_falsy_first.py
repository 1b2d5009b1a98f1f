#!/usr/bin/env python3
"""Bug: the Node executor's JSON parser detects a duplicate key by truthiness (`container[key] && ...` instead of
hasOwnProperty), so a key repeated after a falsy first value (null, false or "") is not refused and the last value
wins.

Where it ships: hand-written JSON decoders and duplicate-key revivers in JS (`if (seen[key]) throw ...`), written
and tested with non-empty sample values. docs/protocol.md: "duplicate keys at any depth ... are
`invalid_arguments`"; docs/errors.md, invalid_arguments: "an object repeats a key at any depth (a parser that keeps
the last one would let a model smuggle a second value past a reviewer)".

Expected checks: corpus-codes and malformed-input-refused, only with a duplicate whose first value is falsy.
Written blind in round 4 (examples/buggy/BLIND4.md).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "      if (Object.prototype.hasOwnProperty.call(top.container, top.key) && duplicate === null) {\n"

NEW = (
    "      // BUG: a truthiness test: a key whose first value is null, false or \"\" is not seen as repeated.\n"
    "      if (top.container[top.key] && duplicate === null) {\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
