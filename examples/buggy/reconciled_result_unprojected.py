"""A reconciled `completed` result is validated as the status query returned it, without projecting it onto the
output schema's properties: when the downstream's stored result carries internal members (as its 2xx answers do),
the reconciled answer is `output_invalid` (additionalProperties) and recorded FAILED_FINAL, although the effect
happened and its result is valid once projected.

Where it ships: executors whose projection lives in the HTTP-call path only, and a reconciler added later that
validates the status query's result directly.

Breaks docs/protocol.md: 2xx -> "the body projected onto the output schema's properties, validated", and the
reconciliation table: completed -> "the result, meta.reconciled = true; record it".
"""

import json  # noqa: F401  (the copied method reads JSON)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402
from callproof_executor import (  # noqa: E402,F401  (the same module object as cp)
    CLAIM_ROUNDS, FINAL_TASK_STATUSES, derive_key, LEASE_MARGIN_MS, MAX_ATTEMPTS, Record, Refusal, _violations, fail,
    Lost, NotSent, TimedOut, in_progress, now_ms, project, rejection, replay, succeed)


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    template = tool.downstream.get("status")
    if template is None:
        if tool.entry.get("repeatable"):
            self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
            return None
        if outcome is not None:
            return replay(outcome, meta)
        return fail(Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                            "be reconciled automatically", reason="unreconcilable"), meta)
    failed = Refusal("dependency_unavailable", "the outcome of an earlier attempt could not be checked; "
                     "retry later", reason="reconciliation_failed")
    try:
        status, _, body = self.downstream.send(template, arguments, ctx, key=key)
    except (NotSent, Lost, TimedOut):
        return fail(failed, meta)
    if status == 404:
        found = {"status": "not_found"}
    elif status == 200:
        try:
            found = json.loads(body)
        except ValueError:
            return fail(failed, meta)
    else:
        return fail(failed, meta)
    kind = found.get("status") if isinstance(found, dict) else None
    if kind == "completed":
        meta["reconciled"] = True
        result = found.get("result")  # BUG: not projected onto the output schema's properties
        violations = _violations(tool.output, result)
        if violations:
            state, envelope = "FAILED_FINAL", fail(Refusal(
                "output_invalid", "the tool's output breaks its contract", path=violations[0]["path"],
                keyword=violations[0]["keyword"]), meta)
        else:
            state, envelope = "SUCCEEDED", succeed(result, meta)
        self.compare_and_set(key, version, state, envelope)
        return envelope
    if kind == "rejected":
        meta["reconciled"] = True
        envelope = fail(rejection(tool, body, "downstream_rejected"), meta)
        self.compare_and_set(key, version, "FAILED_FINAL", envelope)
        return envelope
    if kind == "pending":
        refusal = in_progress(0)
        refusal.details["reason"] = "downstream_pending"
        return fail(refusal, meta)
    if kind == "not_found":
        now = now_ms()
        if earlier_deadline > now:
            refusal = in_progress(earlier_deadline - now)
            refusal.details["reason"] = "awaiting_earlier_deadline"
            return fail(refusal, meta)
        self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
        return None
    return fail(failed, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
