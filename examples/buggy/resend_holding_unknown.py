#!/usr/bin/env python3
"""Bug: after the status query finds nothing past the earlier attempt's deadline, the reconciler lets the call
send again under the UNKNOWN record as it is (no move to IN_PROGRESS: no new epoch, no lease, no attempt counted),
so a concurrent retry meanwhile also reconciles, also finds nothing and also sends, and resends escape the retry
budget.

Where it ships: a reconciler that returns "proceed" to a caller that assumes it holds the record; the final
compare-and-set is written against whatever version it was handed, so sequential tests pass. docs/protocol.md: "a
duplicate while the first runs is `operation_in_progress`"; docs/stores.md: "Of many concurrent claims of one key,
exactly one acquires", "`attempts` | executions started, for the retry budget".

Expected checks: burst-single-execution / single-effect, on a burst of retries after an unknown outcome that the
status query does not find past the deadline. Written blind in round 5 (examples/buggy/BLIND5.md).
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
        # BUG: "nothing there and its deadline has passed: go ahead and send", under the record as it is (UNKNOWN,
        # the old epoch, lease and deadline, no attempt counted), which the final compare-and-set then settles.
        return (key, version)
    return cp.fail(failed, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
