"""Buggy independent Node executor (blind round 13): auth defaults merged last: roles always []."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "  const auth = msg.auth || {};\n",
)
NEW = (
    "  const auth = Object.assign({}, msg.auth, { roles: [] }); // BUG(auth_defaults_assign_last)\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
