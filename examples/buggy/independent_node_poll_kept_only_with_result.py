"""Buggy independent Node executor (blind round 13): only a final poll answer with a truthy result is kept."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "  if (r.result && FINAL.has(r.result.status)) store.putTask(tkey, r.result);",
)
NEW = (
    "  if (r.result && r.result.result && FINAL.has(r.result.status)) store.putTask(tkey, r.result); // BUG(poll_kept_only_with_result)",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
