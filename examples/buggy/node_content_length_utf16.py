#!/usr/bin/env python3
"""Bug: the Node executor keeps a POST/PUT body as a JavaScript string (no `Buffer.from`), so the
`Content-Length` it sets is `body.length` in UTF-16 code units while the UTF-8 bytes are written: any non-ASCII
argument (a refund reason `remboursé`, an email body in Japanese) goes out with a Content-Length shorter than the
body.

Where it ships: `'Content-Length': String(json.length)` in JavaScript; every ASCII test passes.
docs/protocol.md: `POST` and `PUT` send the arguments as a JSON body.

Expected catch: a scenario with non-ASCII text in a side-effecting request that expects ok (expectations).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_content_length_utf16.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_content_length_utf16.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
