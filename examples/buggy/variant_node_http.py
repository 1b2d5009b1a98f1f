#!/usr/bin/env python3
"""Correct, written another way: another language. This module only replaces itself (exec, same process id) with
`node examples/buggy/node/callproof_executor.mjs`, a complete executor in Node 20 written from docs/protocol.md,
docs/errors.md and docs/conformance-app.md alone: one event loop and no threads, its own strict JSON parser,
its own JSON Schema validator for the catalog's keywords, `http.request` with a new connection per request,
wire lines in its own member order.

Permitted by docs/protocol.md: "`callproof conform` tests an executor written in any language by running it as a
child process and talking to it over stdio. This page is everything you need to write such an executor".

Expected: passes every check under --profile all. The probe of what the protocol doc fails to say.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "callproof_executor.mjs")
MODE = "http"

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = MODE
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
