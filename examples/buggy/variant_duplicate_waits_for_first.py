"""Correct variant: a duplicate of a running call waits for the first attempt and replays its outcome.

What it does differently: when an identical call (same key, same arguments) finds the record IN_PROGRESS under a
live lease, the example answers `operation_in_progress` at once. This variant waits (polling the record every
20 ms) for that attempt to settle, within the duplicate's own deadline (it stops waiting with 100 ms left), and
answers the first attempt's recorded outcome, marked `replayed: true`, whatever it was (success, final refusal,
retryable failure, unknown). If its own deadline comes first, or another attempt retakes the record meanwhile, it
answers `operation_in_progress` as the example does. Arguments are compared before any waiting (the example's
order), so a changed call is still `idempotency_conflict` at once.

Where it ships: request coalescing, "single-flight" (Go's golang.org/x/sync/singleflight, a shared future per key in
asyncio or Java executors), where duplicates wait on the first call's result instead of being refused.

Doc relied on: docs/protocol.md, What the executor must do, step 3: "a duplicate while the first runs is
`operation_in_progress` (or waits for the first, within its own deadline, and replays its outcome)".
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import changed_copy, cp, serve  # noqa: E402


def wait_for_first(self, key, epoch, ctx):
    """The outcome the attempt holding `epoch` recorded, once it settled; None if this call's deadline comes first
    or the record moved on to another attempt."""
    while ctx.remaining_ms() > 100:
        with self.lock:
            record = self.records.get(key)
            if record is None or record.epoch != epoch:
                return None
            if record.state != "IN_PROGRESS":
                return record.outcome
            if record.lease <= cp.now_ms():
                return None
        time.sleep(0.02)
    return None


cp.Executor.wait_for_first = wait_for_first

changed_copy(
    cp.Executor, "claim",
    """            if state == "IN_PROGRESS" and record_lease > now:
                return fail(in_progress(record_lease - now), meta)""",
    """            if state == "IN_PROGRESS" and record_lease > now:
                settled = self.wait_for_first(key, epoch, ctx)
                if settled is None:
                    return fail(in_progress(max(record_lease - now_ms(), 0)), meta)
                return replay(settled, meta)""",
)

if __name__ == "__main__":
    serve(__file__)
