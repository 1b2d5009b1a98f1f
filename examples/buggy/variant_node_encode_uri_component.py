#!/usr/bin/env python3
"""Correct, written another way: the Node executor (examples/buggy/node/callproof_executor.mjs) with path and
query values encoded by `encodeURIComponent` alone, the way most JavaScript code does it: `!'()*` stay as they
are (the executor's default encodes them too).

Permitted by docs/protocol.md: "`{name}` is the argument's value, percent-encoded": no set of characters is
named, and `!*'()` are sub-delimiters, allowed as data in a path segment and in a query (RFC 3986 §3.3, §3.4).

Expected: passes every check under --profile all.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "callproof_executor.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_URL_ENCODING"] = "component"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
