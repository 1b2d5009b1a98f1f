"""independent_node_record_deadline_date: the claim stores the attempt's deadline as a `Date`; in process it compares as a number, but the record
file's JSON round trip makes it a string, so after a restart a 404 status answer is taken as proof before the dead
attempt's deadline and the refund is sent again.

Ships in JSON-file stores with Date fields (JSON.parse never revives them). Breaks docs/protocol.md: an attempt
whose process died keeps the deadline it sent with, across the restart. Written blind in round 18 (examples/buggy/BLIND18.md).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

OLD = 'lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline, created_ms: now, outcome: null };'
NEW = 'lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: new Date(deadline), created_ms: now, outcome: null };'

patch.exec_node(__file__, 'executor.mjs', OLD, NEW)
