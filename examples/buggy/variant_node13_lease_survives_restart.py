"""Correct variant of the independent Node executor: an IN_PROGRESS record left by a process that died is honoured
until its lease (deadline + 2 s) runs out; a retry inside the lease answers operation_in_progress (retry_after_ms =
the lease left), and only an expired lease turns the record UNKNOWN, to be reconciled. The process no longer takes a
record held by another instance for dead (it cannot tell a dead holder from a live one elsewhere).

Docs: protocol.md "An `IN_PROGRESS` record whose lease (deadline + 2 s) ran out is unknown, not absent."; errors.md
operation_in_progress "another attempt of the same business operation holds the record and its lease has not
expired". Expected: passes under --profile all.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {",
    "if (now < rec.lease_expires_ms && rec.owner === INSTANCE) {",
)
NEW = (
    "if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE && !(rec.lease_expires_ms > Date.now())) {",
    "if (now < rec.lease_expires_ms) {",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
