"""The idempotency key takes the business request id whenever it is not undefined, so a null one becomes the text
'null' and every null-id call of one caller and tool shares one key. Breaks docs/protocol.md 'followed by b and
the business request id when there is one, else by a and the 32 raw bytes of the arguments' SHA-256'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "if (brid !== null && brid !== undefined) parts.push(Buffer.from('b'), Buffer.from(String(brid), 'utf8'));",
)
NEW = (
    "if (brid !== undefined) parts.push(Buffer.from('b'), Buffer.from(String(brid), 'utf8')); // BUG(key_null_brid_stringified)",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
