#!/usr/bin/env python3
"""Bug: the Node executor keeps a POST/PUT body as a JavaScript string (no `Buffer.from`), so the
`Content-Length` it sets is `body.length` in UTF-16 code units while the UTF-8 bytes are written: any non-ASCII
argument (a refund reason `remboursé`, an email body in Japanese) goes out with a Content-Length shorter than the
body.

Where it ships: `'Content-Length': String(json.length)` in JavaScript; every ASCII test passes.
docs/protocol.md: `POST` and `PUT` send the arguments as a JSON body.

Expected catch: a scenario with non-ASCII text in a side-effecting request that expects ok (expectations).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "      body = Buffer.from(write(args), 'utf8');\n"

NEW = (
    "      // BUG: the body stays a string, so sendHttp's Content-Length is its length in UTF-16 units, not bytes.\n"
    '      body = write(args);\n'
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
