"""independent_node_in_progress_hint_seconds: `operation_in_progress` for a live holder gives `retry_after_ms` in seconds (`Math.ceil((lease - now) /
1000)`), the unit of HTTP's Retry-After, so the caller is told to come back after 5 ms instead of 4.7 s.

Ships when the Retry-After header's seconds are copied into a `_ms` field. Breaks docs/errors.md: `retry_after_ms` is
a whole number of milliseconds. Written blind in round 18 (examples/buggy/BLIND18.md).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

OLD = 'retry_after_ms: Math.max(0, rec.lease_expires_ms - now) }'
NEW = 'retry_after_ms: Math.ceil(Math.max(0, rec.lease_expires_ms - now) / 1000) }'

patch.exec_node(__file__, 'executor.mjs', OLD, NEW)
