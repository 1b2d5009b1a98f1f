"""The support role is tested with `roles.indexOf('support_admin')` as a boolean: -1 (absent) is truthy, index 0 is
falsy. Breaks docs/conformance-app.md 'its owner_id the caller's unless the caller holds the role support_admin'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "const owner = resource.owner_id === auth.subject_id || roles.includes('support_admin');",
)
NEW = (
    "const owner = resource.owner_id === auth.subject_id || roles.indexOf('support_admin'); // BUG(support_role_indexof)",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
