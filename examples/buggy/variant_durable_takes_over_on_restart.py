#!/usr/bin/env python3
"""Written another way, and a judgement call: the durable file store of `variant_durable_file_store.py`,
plus recovery at start-up. A process that finds IN_PROGRESS records of its own session left by its previous
incarnation (which is dead: it is the same command restarted with the same `session`) marks them UNKNOWN at
once, instead of waiting for their leases to run out; the next attempt then reconciles by status query (and
still waits for "not found" until the earlier attempt's deadline, as the example does).

Where it ships: workers that recover their own orphaned jobs on boot (a process epoch or boot id fences the
dead holder), so a crash does not cost the caller a lease.

Permitted? docs/errors.md, operation_in_progress: "another attempt of the same business operation holds the
record and its lease has not expired" (here nothing holds it any more: its holder is known dead);
docs/protocol.md: "With a durable store the retry must find the record and return the real outcome (replay, or
reconciliation by status query), with exactly one committed effect", which this does. Against it:
docs/protocol.md "An IN_PROGRESS record whose lease (deadline + 2 s) ran out is unknown, not absent" (the
lease as the only way out of IN_PROGRESS), and scenarios/idempotency/crash_after_commit.toml: "A retry within
the lease answers operation_in_progress".

Expected: passes every check under --profile all (crash_after_commit leaves step 2 unpinned since 2026-12-03;
before, it pinned operation_in_progress there, and this answers ok, reconciled, with the one committed refund).
"""

import variant_durable_file_store as durable  # (installs the durable store into the example)
from correct import cp, serve

DURABLE_INIT = cp.Executor.__init__


def __init__(self, hello):
    DURABLE_INIT(self, hello)
    with self.lock:
        orphans = [record for record in self.records.values() if record.state == "IN_PROGRESS"]
        for record in orphans:
            record.state = "UNKNOWN"
        if orphans:
            durable._save(self)


cp.Executor.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
