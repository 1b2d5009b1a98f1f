#!/usr/bin/env python3
"""Correct, written another way: the Node executor (examples/buggy/node/callproof_executor.mjs) with its
downstream requests sent by Node's global `fetch` (undici) instead of `http.request`: keep-alive pooled
connections, undici's own default headers (`user-agent: node`, `accept: */*`, `accept-language`,
`sec-fetch-mode`, `accept-encoding: gzip, deflate`), redirects turned off (`redirect: "manual"`), and "sent" known
only from the error's code (a refused connection is `ECONNREFUSED`; anything else after the request began is
taken as sent).

Permitted by docs/protocol.md: the HTTP contract names the requests and their headers, not the client; a
redirect is an answer and is never followed ("3xx (a redirect: never follow it)").

Expected: passes every check under --profile all.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "callproof_executor.mjs")
MODE = "fetch"

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = MODE
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
