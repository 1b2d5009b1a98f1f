#!/usr/bin/env python3
"""Bug: the Node executor percent-encodes path and query values with `encodeURI` instead of
`encodeURIComponent`, so `&`, `=`, `?`, `#`, `/`, `+` and `;` pass through: a `get_weather` location
`Oslo&units=fahrenheit` rewrites the query, `a#b` cuts it.

Where it ships: the most common JavaScript URL-building mistake (encodeURI is meant for whole URLs).
docs/protocol.md: `{name}` is the argument's value, percent-encoded.

Expected catch: a scenario whose location holds a reserved character (expectations).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = '    const encoded = encodeURIComponent(value);\n'

NEW = (
    '    // BUG: encodeURI leaves & = ? # / + : , ; @ $ as they are.\n'
    '    const encoded = encodeURI(value);\n'
    '    return encoded;\n'
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
