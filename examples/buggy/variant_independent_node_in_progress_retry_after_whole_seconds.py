"""The independent Node executor with one legitimate freedom: `operation_in_progress` for a held lease gives
`retry_after_ms` rounded up to whole seconds, clamped to [1000, 3 600 000].

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "        return fail(err('operation_in_progress', { retry_after_ms: Math.max(0, rec.lease_expires_ms - now) }), kmeta);"
NEW = "        // Variant nv_in_progress_retry_after_whole_seconds: what is left of the lease, rounded up to whole seconds\n        const leftMs = Math.max(0, rec.lease_expires_ms - now);\n        return fail(err('operation_in_progress', { retry_after_ms: Math.min(3600000, Math.max(1000, Math.ceil(leftMs / 1000) * 1000)) }), kmeta);"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
