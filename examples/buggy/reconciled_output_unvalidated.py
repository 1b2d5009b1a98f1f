#!/usr/bin/env python3
"""Bug: a result found by reconciliation (the status query's `completed` result) is returned without output
validation; only the direct answer of the tool is validated.

Where it ships: output validation written as a wrapper around the tool call, while the recovery path (status
query, webhook, cache) builds results somewhere else.

Expected catch: output-invalid-withheld (and the scenario's expectations) in idempotency/reconciled_output_is_validated,
where bad_output breaks the result the status query reports.
"""

import json

from correct import cp, serve


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    template = tool.downstream.get("status")
    if template is None:
        if tool.entry.get("repeatable"):
            self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
            return None
        if outcome is not None:
            return cp.replay(outcome, meta)
        return cp.fail(cp.Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool "
                                  "cannot be reconciled automatically", reason="unreconcilable"), meta)
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
        envelope = cp.succeed(cp.project(tool, found.get("result")), meta)  # the bug: not validated
        self.compare_and_set(key, version, "SUCCEEDED", envelope)
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
        now = cp.now_ms()
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
