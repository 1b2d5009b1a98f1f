#!/usr/bin/env python3
"""Bug: reconciliation compares the earlier attempt's deadline (wall-clock ms, as the record stores it) with
`time.monotonic()` in ms, so the deadline always looks ahead: a status query answering 404 is always
operation_in_progress (`awaiting_earlier_deadline`, retry after decades) and the operation is never sent again.

Where it ships: a code base moved to monotonic time for deadlines (rightly, for the budget) that also uses it
against a stored wall-clock value. docs/protocol.md: 404 after the earlier attempt's deadline: send again with the
same key.

Expected catch: expectations, in a scenario whose retry comes after the earlier deadline of an unknown outcome
that never committed.
"""

import json
import time

from correct import cp, serve


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    template = tool.downstream.get("status")
    if template is None:
        if tool.entry.get("repeatable"):
            self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
            return None
        if outcome is not None:
            return cp.replay(outcome, meta)
        return cp.fail(cp.Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                                  "be reconciled automatically", reason="unreconcilable"), meta)
    failed = cp.Refusal("dependency_unavailable", "the outcome of an earlier attempt could not be checked; "
                        "retry later", reason="reconciliation_failed")
    try:
        status, _, body = self.downstream.send(template, arguments, ctx, key=key)
    except (cp.NotSent, cp.Lost, cp.TimedOut):
        return cp.fail(failed, meta)
    if status == 404:
        found = {"status": "not_found"}
    elif status == 200:
        try:
            found = json.loads(body)
        except ValueError:
            return cp.fail(failed, meta)
    else:
        return cp.fail(failed, meta)
    kind = found.get("status") if isinstance(found, dict) else None
    if kind == "completed":
        meta["reconciled"] = True
        result = cp.project(tool, found.get("result"))
        violations = cp._violations(tool.output, result)
        if violations:
            state, envelope = "FAILED_FINAL", cp.fail(cp.Refusal(
                "output_invalid", "the tool's output breaks its contract", path=violations[0]["path"],
                keyword=violations[0]["keyword"]), meta)
        else:
            state, envelope = "SUCCEEDED", cp.succeed(result, meta)
        self.compare_and_set(key, version, state, envelope)
        return envelope
    if kind == "rejected":
        meta["reconciled"] = True
        envelope = cp.fail(cp.rejection(tool, body, "downstream_rejected"), meta)
        self.compare_and_set(key, version, "FAILED_FINAL", envelope)
        return envelope
    if kind == "pending":
        refusal = cp.in_progress(0)
        refusal.details["reason"] = "downstream_pending"
        return cp.fail(refusal, meta)
    if kind == "not_found":
        now = int(time.monotonic() * 1000)  # BUG: a monotonic clock against a wall-clock deadline
        if earlier_deadline > now:
            refusal = cp.in_progress(earlier_deadline - now)
            refusal.details["reason"] = "awaiting_earlier_deadline"
            return cp.fail(refusal, meta)
        self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
        return None
    return cp.fail(failed, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
