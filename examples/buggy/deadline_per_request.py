#!/usr/bin/env python3
"""Bug: every downstream request gets the whole budget (its own timeout and X-Deadline-Ms), not what is left of
the call's one deadline, so a call with a slow lookup and a slow effect takes up to twice its budget.

Where it ships: `requests.get(url, timeout=budget)` then `requests.post(url, timeout=budget)`; deadlines
"propagated" per hop instead of as one absolute deadline (what gRPC deadlines and Go contexts get right).

Expected catch: answer-within-deadline if a scenario makes both the lookup and the effect slow; otherwise
nothing today (deadline-propagated only checks X-Deadline-Ms <= budget).
"""

import time

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    if not hasattr(ctx, "budget_s"):
        ctx.budget_s = ctx.deadline - time.monotonic()
    ctx.deadline = time.monotonic() + ctx.budget_s  # the bug: the budget starts again at every request
    return ORIGINAL_SEND(self, template, arguments, ctx, key)


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
