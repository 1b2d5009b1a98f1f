#!/usr/bin/env python3
"""Bug: the Node executor reads the 429's `Retry-After` as `headers['Retry-After']`; Node's `http` lower-cases
every incoming header name, so the lookup is always undefined and `retry_after_ms` is always the 1000 ms default.

Where it ships: header names copied from documentation or curl output into code whose client normalises case
(Node `http`, undici's `Headers` is case-insensitive but plain objects are not). docs/protocol.md: 429 with
`Retry-After: s` is `rate_limited` with `details.retry_after_ms = s x 1000`.

Expected catch: a rate_limit scenario with `retry_after` other than 1 (expectations, rate-limit-retry-after).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "      const header = String(answer.headers['retry-after'] ?? '').trim();\n"

NEW = (
    '      // BUG: Node lower-cases incoming header names, so this is always undefined.\n'
    "      const header = String(answer.headers['Retry-After'] ?? '').trim();\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
