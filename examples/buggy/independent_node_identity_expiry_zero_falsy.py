"""Independent Node executor with one bug: the identity expiry test in execute() guards with the truthiness of
expires_at_ms, so an identity expiring at 0 (the epoch) never expires.

Where it ships: as truthiness guards on optional numeric fields.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "  if (typeof identity.expires_at_ms === 'number' && identity.expires_at_ms <= Date.now()) return fail(err('unauthorized', { reason: 'identity_expired' }));"
NEW = "  if (identity.expires_at_ms && identity.expires_at_ms <= Date.now()) return fail(err('unauthorized', { reason: 'identity_expired' }));"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
