#!/usr/bin/env python3
"""Bug: reconciliation reads a `pending` status like `not_found` (and sends again after the deadline).

Where it ships: status handling written as "completed -> done, rejected -> failed, anything else -> it did not
happen", the two-state view of a three-state answer (queues, payment processors and email relays all answer
"pending/processing" while work is queued). After the first attempt's deadline the executor sends the request
again while the first is still being applied, and before it answers `awaiting_earlier_deadline` where the docs
say `downstream_pending`. docs/protocol.md (Reconciliation): `200 {"status":"pending"}` ->
`operation_in_progress` (`reason: downstream_pending`).

Expected check: expectations (a step pinning `details.reason = "downstream_pending"`), and single-effect when a
pending operation is retried after its first deadline.
"""

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
            found = cp.json.loads(body)
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
    # BUG: only `completed` and `rejected` are read; anything else (`pending` included) counts as "not there".
    now = cp.now_ms()
    if earlier_deadline > now:
        refusal = cp.in_progress(earlier_deadline - now)
        refusal.details["reason"] = "awaiting_earlier_deadline"
        return cp.fail(refusal, meta)
    self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
    return None


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
