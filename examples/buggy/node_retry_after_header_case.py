#!/usr/bin/env python3
"""Bug: the Node executor reads the 429's `Retry-After` as `headers['Retry-After']`; Node's `http` lower-cases
every incoming header name, so the lookup is always undefined and `retry_after_ms` is always the 1000 ms default.

Where it ships: header names copied from documentation or curl output into code whose client normalises case
(Node `http`, undici's `Headers` is case-insensitive but plain objects are not). docs/protocol.md: 429 with
`Retry-After: s` is `rate_limited` with `details.retry_after_ms = s x 1000`.

Expected catch: a rate_limit scenario with `retry_after` other than 1 (expectations, rate-limit-retry-after).

This module only replaces itself (exec, same process id) with `node examples/buggy/node/node_retry_after_header_case.mjs`: the Node
executor (examples/buggy/node/callproof_executor.mjs) with that one change.
"""

import os
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node", "node_retry_after_header_case.mjs")

if __name__ == "__main__":
    os.environ["CALLPROOF_NODE_HTTP"] = "http"
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + os.path.splitext(os.path.basename(__file__))[0]
    sys.stdout.flush()
    os.execvp("node", ["node", SCRIPT])
