"""Buggy independent Node executor (blind round 13): findIndex(...) > 0 misses a mismatch of the first approval check (subject_id)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    """    const bad = checks.find(([, good]) => !good);
    if (bad) return fail(err('approval_required', { reason: 'approval_mismatch', mismatch: bad[0], ...base }));""",
)
NEW = (
    """    const badAt = checks.findIndex(([, good]) => !good); // BUG(approval_mismatch_index_gt_zero)
    if (badAt > 0) return fail(err('approval_required', { reason: 'approval_mismatch', mismatch: checks[badAt][0], ...base })); // BUG(approval_mismatch_index_gt_zero)""",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
