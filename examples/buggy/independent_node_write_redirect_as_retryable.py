"""Buggy independent Node executor (blind round 13): a 3xx to a side-effecting request is answered as retryable dependency_unavailable."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    """  if (st >= 300 && st < 400) {
    if (sideEffect) return { error: err('timeout_unknown', { reason: 'unexpected_answer', downstream_status: st }), state: 'UNKNOWN' };""",
)
NEW = (
    """  if (st >= 300 && st < 400) { // BUG(write_redirect_as_retryable): the side-effect branch is gone""",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
