#!/usr/bin/env python3
"""Bug: the Node executor percent-encodes path and query values with `encodeURI` instead of
`encodeURIComponent`, so `&`, `=`, `?`, `#`, `/`, `+` and `;` pass through: a `get_weather` location
`Oslo&units=fahrenheit` rewrites the query, `a#b` cuts it.

Where it ships: the most common JavaScript URL-building mistake (encodeURI is meant for whole URLs).
docs/protocol.md: `{name}` is the argument's value, percent-encoded.

Expected catch: a scenario whose location holds a reserved character (expectations).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_encodeuri_in_url.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_encodeuri_in_url.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
