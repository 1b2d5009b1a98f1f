"""independent_node_approval_single_use: Approvals are one-shot: an `approval_id` this process has already used is
refused (`approval_required`), so a retry of the same operation with the same approval cannot even reconcile.

Doc sentence it breaks: docs/errors.md: `approval_required` only when the call carries no approval, or it does not
cover this exact operation, or it has expired.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    (
        '// ---------------------------------------------------------------- the pipeline\n'
        'async function execute(msg, lineValue) {\n'
    ),
    (
        "    if (!(typeof ap.expires_at_ms === 'number' && ap.expires_at_ms > Date.now())) return fail(err('approval_required', { reason: 'approval_expired', ...base }));\n"
        '  }\n'
    ),
)
NEW = (
    (
        '// ---------------------------------------------------------------- the pipeline\n'
        'const usedApprovals = new Set(); // BUG(node_approval_single_use)\n'
        'async function execute(msg, lineValue) {\n'
    ),
    (
        "    if (!(typeof ap.expires_at_ms === 'number' && ap.expires_at_ms > Date.now())) return fail(err('approval_required', { reason: 'approval_expired', ...base }));\n"
        '    // BUG(node_approval_single_use): an approval is consumed by its first use; a second call with it is refused\n'
        "    if (usedApprovals.has(ap.approval_id)) return fail(err('approval_required', { reason: 'approval_expired', ...base }));\n"
        '    usedApprovals.add(ap.approval_id);\n'
        '  }\n'
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
