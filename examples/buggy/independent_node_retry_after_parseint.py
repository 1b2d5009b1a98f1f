"""Retry-After is read as `parseInt(v, 10) * 1000 || 1000`: '1.5' gives 1000, '2abc' 2000, '0' 1000. Breaks
docs/protocol.md '429, Retry-After: s | rate_limited, details.retry_after_ms = s x 1000 (default 1000)'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "  const v = h['retry-after'];\n  if (typeof v === 'string' && /^\\s*\\d+\\s*$/.test(v)) return parseInt(v, 10) * 1000;\n  if (typeof v === 'string' && /^\\s*\\d+(\\.\\d+)?\\s*$/.test(v)) return Math.round(parseFloat(v) * 1000);\n  return 1000;\n",
)
NEW = (
    "  const v = h['retry-after'];\n  return parseInt(v, 10) * 1000 || 1000; // BUG(retry_after_parseint)\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
