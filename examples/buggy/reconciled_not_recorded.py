#!/usr/bin/env python3
"""Bug: a status query's `completed` / `rejected` answer is answered but not recorded: the record stays UNKNOWN.

Where it ships: a reconciliation path written as a pure query ("the downstream is the source of truth"), with the
store write only on the main send path; every later retry asks the downstream again. docs/protocol.md,
reconciliation table: "`200 {"status":"completed","result":{...}}` | the result, `meta.reconciled = true`; record
it"; "a finished one is replayed (`meta.replayed = true`)".

Expected checks: expectations, on a call after the reconciled one that pins `replayed = true`. Written blind in
round 4 (examples/buggy/BLIND4.md).
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
            envelope = cp.fail(cp.Refusal(
                "output_invalid", "the tool's output breaks its contract", path=violations[0]["path"],
                keyword=violations[0]["keyword"]), meta)
        else:
            envelope = cp.succeed(result, meta)
        # BUG: not recorded; the record stays UNKNOWN and the next retry asks again.
        return envelope
    if kind == "rejected":
        meta["reconciled"] = True
        # BUG: not recorded either.
        return cp.fail(cp.rejection(tool, body, "downstream_rejected"), meta)
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
