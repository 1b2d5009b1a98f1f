#!/usr/bin/env python3
"""Correct, written another way: a duplicate that finds the first attempt of its business operation still
running waits for it (polling the record every 20 ms, while at least 300 ms of its own budget are left) and then
answers what the first one settled, as a replay; only when its own budget runs short does it answer
operation_in_progress, as the example does at once.

Where it ships: "request coalescing" / single-flight executors (Go's singleflight, idempotency middleware that
blocks on a lock), which spare the agent a polling round.

Permitted by docs/checks.md: "**Burst answers**: which call of a burst wins, and whether the others wait or
replay, is scheduling; the checks accept either", and `burst-single-execution`: "the others answer
`operation_in_progress` or replay the successful result". A replay is what docs/protocol.md asks for "a finished
one" ("a finished one is replayed (`meta.replayed = true`)"); once the wait is over, the first one is finished.
The doc tension: protocol.md's step 3 also says "a duplicate while the first runs is `operation_in_progress`";
this variant answers that only while the first still runs at the moment it answers.

Expected: passes every check under --profile all. A false-positive probe for the burst scenarios and for
deadline-related checks on the waiting calls (they never send anything while waiting).
"""

import time

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim
SPARE_MS = 300


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    answer = ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)
    while (isinstance(answer, dict) and not answer["ok"] and answer["error"]["code"] == "operation_in_progress"
           and "reason" not in answer["error"]["details"] and ctx.remaining_ms() > SPARE_MS):
        with self.lock:
            record = self.records.get(key)
            running = record is not None and record.state == "IN_PROGRESS" and record.lease > cp.now_ms()
        if running:
            time.sleep(0.02)
            continue
        answer = ORIGINAL_CLAIM(self, key, fingerprint, tool, arguments, ctx, meta)
    return answer


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
