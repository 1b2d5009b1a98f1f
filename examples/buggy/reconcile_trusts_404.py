#!/usr/bin/env python3
"""Bug: reconciliation trusts a 404 from the status query at once and sends again, even before the earlier
attempt's deadline, while that attempt may still commit.

Where it ships: "not found means it never happened" reconcilers that keep no deadline in the record; the
earlier request can still be in a queue or a retrying proxy and land after the resend.

Expected catch: single-effect, ok-means-applied and expectations on idempotency/late_landing_after_lost_answer,
whose drop_then_land fault loses the answer at once and lands the refund after the first status query.
"""

from correct import cp, serve

ORIGINAL_RECONCILE = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    # the bug: the record's deadline is not consulted; not_found is final at once
    return ORIGINAL_RECONCILE(self, key, version, 0, outcome, tool, arguments, ctx, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
