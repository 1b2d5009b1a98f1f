#!/usr/bin/env python3
"""Correct, written another way: a retry that finds "not found" before the earlier attempt's deadline waits for
that deadline (when its own budget allows) and asks again, instead of answering operation_in_progress.

Where it ships: reconcilers that spend the caller's budget rather than send the agent round again; they still
never resend while the earlier attempt may land.

Expected: passes every check under --profile all. A false-positive probe for the scenarios about reconciling
before the earlier deadline (idempotency/late_landing_after_lost_answer leaves that answer open on purpose).
"""

import time

from correct import cp, serve

ORIGINAL_RECONCILE = cp.Executor.reconcile

# How much of the retry's own budget must be left after the wait.
SPARE_MS = 300


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    envelope = ORIGINAL_RECONCILE(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    waiting = (envelope is not None and not envelope["ok"]
               and envelope["error"]["details"].get("reason") == "awaiting_earlier_deadline")
    wait_ms = earlier_deadline - cp.now_ms()
    if waiting and 0 < wait_ms < ctx.remaining_ms() - SPARE_MS:
        time.sleep(wait_ms / 1000 + 0.05)
        return ORIGINAL_RECONCILE(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    return envelope


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
