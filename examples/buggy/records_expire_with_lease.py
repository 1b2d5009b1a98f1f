#!/usr/bin/env python3
"""Bug: idempotency records expire with their lease (deadline + 2 s), finished ones included, so a retry that
comes later executes the operation again.

Where it ships: Redis idempotency stores that claim with `SET key IN_PROGRESS NX PX <lease>` and record the
outcome with `SET key <outcome> XX KEEPTTL` (or a DynamoDB TTL set once at the claim): the lease's TTL quietly
becomes the record's lifetime. Records must outlive every retry the caller may make.

Expected catch: single-effect and expectations if a scenario retries a finished operation after its lease;
otherwise nothing today.
"""

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    with self.lock:
        record = self.records.get(key)
        if record is not None and record.lease <= cp.now_ms():
            del self.records[key]  # the bug: the store's TTL was the lease
    return ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
