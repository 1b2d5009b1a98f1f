#!/usr/bin/env python3
"""Bug: meta.reconciled = true is set as soon as the status query answered, before its answer is read, so the
fresh execution after a not_found past the earlier deadline (and the pending and awaiting_earlier_deadline answers)
carries reconciled: true.

Where it ships: a reconciler that marks "this call went through reconciliation" rather than "reconciliation
established the outcome". docs/envelope.schema.json, meta.reconciled: "Present (and true) only when the outcome was
established by asking the downstream after an unknown outcome."

Expected checks: expectations, where a step after a not_found (or pending) status answer pins `reconciled` (else
missed). Written blind in round 5 (examples/buggy/BLIND5.md).
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
    try:
        status, _, body = self.downstream.send(template, arguments, ctx, key=key)
    except (cp.NotSent, cp.Lost, cp.TimedOut):
        return cp.fail(failed, meta)
    # BUG: marked reconciled because the downstream was asked, whatever it answered (set below only for
    # completed and rejected in the example).
    meta["reconciled"] = True
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
