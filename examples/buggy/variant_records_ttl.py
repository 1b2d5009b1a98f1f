#!/usr/bin/env python3
"""Correct, written another way: settled idempotency records (SUCCEEDED, FAILED_RETRYABLE, FAILED_FINAL) are
kept for ten minutes after their last transition, then purged by a background thread every five seconds
(the example keeps every record for the life of its process). IN_PROGRESS and UNKNOWN records are never purged.

Where it ships: every in-memory store with a TTL (a cache with expiry, Redis `PEXPIRE`), so that a long-running
executor's memory stays bounded.

Permitted by docs/stores.md: "Settled records (SUCCEEDED, FAILED_RETRYABLE, FAILED_FINAL) are kept for the
retention window after their last transition: default 7 days (`DEFAULT_RETENTION`, configurable per store)"
and "IN_PROGRESS and UNKNOWN records are never deleted"; ten minutes outlasts every retry of a scenario.

Expected: passes every check under --profile all.
"""

import threading
import time

from correct import cp, serve

RETENTION_MS = 10 * 60 * 1000
PURGE_EVERY_S = 5
SETTLED = ("SUCCEEDED", "FAILED_RETRYABLE", "FAILED_FINAL")
ORIGINAL_INIT = cp.Executor.__init__
ORIGINAL_COMPARE_AND_SET = cp.Executor.compare_and_set


def purge(executor):
    while True:
        time.sleep(PURGE_EVERY_S)
        cutoff = cp.now_ms() - RETENTION_MS
        with executor.lock:
            for key in [key for key, record in executor.records.items()
                        if record.state in SETTLED and getattr(record, "updated", cutoff + 1) < cutoff]:
                del executor.records[key]


def init(self, hello):
    ORIGINAL_INIT(self, hello)
    threading.Thread(target=purge, args=(self,), daemon=True).start()


def compare_and_set(self, key, version, state, outcome, **changes):
    return ORIGINAL_COMPARE_AND_SET(self, key, version, state, outcome, updated=cp.now_ms(), **changes)


cp.Executor.__init__ = init
cp.Executor.compare_and_set = compare_and_set

if __name__ == "__main__":
    serve(__file__)
