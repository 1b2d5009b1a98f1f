"""Correct variant of the independent Node executor: a `Retry-After` given as an HTTP-date (RFC 9110 §10.2.3) becomes
the whole seconds until that date, times 1000 (at least 0), instead of the 1000 ms default; delta-seconds are read
as before.

Doc: protocol.md "429, `Retry-After: s` | not applied | `rate_limited`, `details.retry_after_ms = s × 1000` (default
1000)": the docs speak of seconds only; a date is an input they do not mention. Expected: passes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "  return 1000;\n}",
)
NEW = (
    "  if (typeof v === 'string' && /GMT\\s*$/.test(v)) {\n"
    "    const at = Date.parse(v);\n"
    "    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000)) * 1000;\n"
    "  }\n"
    "  return 1000;\n}",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
