"""The tool answer's 2xx test is `status / 100 === 2` (a port of Python's `//`): only 200 is a success, 201/202/204
fall through to 'outside the contract'. Breaks docs/protocol.md '2xx, JSON body | applied | ok'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    'const st = resp.status;\n  if (st >= 200 && st < 300) {\n    if (!resp.complete) {\n      if (sideEffect)',
)
NEW = (
    'const st = resp.status;\n  if (st / 100 === 2) { // BUG(status_class_division)\n    if (!resp.complete) {\n      if (sideEffect)',
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
