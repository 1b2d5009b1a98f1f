"""The raw-argument branch is guarded by `if (a && a.raw)`: an empty raw text falls through to the 'no arguments'
answer invalid_arguments not_an_object instead of invalid_json. Breaks docs/errors.md 'an empty or truncated
text ... are all refused' and 'an empty text is offset 0 (line 1, column 1)'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "if (a && Object.prototype.hasOwnProperty.call(a, 'raw') && typeof a.raw === 'string') {",
)
NEW = (
    'if (a && a.raw) { // BUG(empty_raw_falsy)',
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
