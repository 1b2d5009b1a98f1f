"""Taking a FAILED_RETRYABLE record again spreads the old record after the new fields, so its state, epoch and
attempts win: the retake's outcome is fenced out and never recorded, and attempts never grow. Breaks
docs/protocol.md 'a finished one is replayed' and docs/errors.md retry_budget_exhausted (5 executions)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "      rec = { ...rec, state: 'IN_PROGRESS', epoch: rec.epoch + 1, attempts: rec.attempts + 1, owner: INSTANCE,\n        lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline };",
)
NEW = (
    "      rec = { state: 'IN_PROGRESS', epoch: rec.epoch + 1, attempts: rec.attempts + 1, owner: INSTANCE,\n        lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline, ...rec }; // BUG(retake_spread_order)",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
