#!/usr/bin/env python3
"""Bug: a status query that fails (5xx, lost connection, no answer) is read as "not found", so the retry sends again.

Where it ships: a reconciler written as `found = query() or {"status": "not_found"}`, or a client whose
`get_status` returns None on any error: "if we cannot find it, it did not happen". docs/errors.md
dependency_unavailable `reconciliation_failed`: "the status query used for reconciliation could not be used";
the record stays UNKNOWN. Only a 404 `{"status":"not_found"}` after the earlier attempt's deadline allows a send.

Expected check: single-effect (and ok-means-applied, expectations), in a scenario where the first attempt
committed and lost its answer and the retry's status query fails.
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
        return cp.fail(cp.Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                                  "be reconciled automatically", reason="unreconcilable"), meta)
    failed = cp.Refusal("dependency_unavailable", "the outcome of an earlier attempt could not be checked; "
                        "retry later", reason="reconciliation_failed")
    # BUG: every failure to ask is taken for "the downstream has no trace of it".
    try:
        status, _, body = self.downstream.send(template, arguments, ctx, key=key)
    except (cp.NotSent, cp.Lost, cp.TimedOut):
        status, body = 404, b""
    if status == 200:
        try:
            found = json.loads(body)
        except ValueError:
            found = {"status": "not_found"}
    else:
        found = {"status": "not_found"}
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
