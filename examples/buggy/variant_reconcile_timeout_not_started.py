#!/usr/bin/env python3
"""Correct, written another way: when the status query of a reconciliation cannot be answered because the call's
deadline passes (or passed) before it, the call answers `timeout_not_started` (`deadline_elapsed`) instead of
`dependency_unavailable` (`reconciliation_failed`). Both are retryable, say nothing was applied by this call, and
leave the record UNKNOWN for the next attempt.

Where it ships: executors that map every deadline expiry before their own side-effecting request to
timeout_not_started.

Permitted by docs/errors.md (timeout_not_started): "the call's deadline ... passed before the side effect could
start", and (dependency_unavailable) "the status query used for reconciliation could not be used": a status query
cut by the deadline fits both.

Expected: passes every check under --profile all (measured 2026-12-03: no scenario pins the code of a
reconciliation cut by the deadline).
"""

from correct import cp, serve

ORIGINAL_RECONCILE = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    answer = ORIGINAL_RECONCILE(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    if (isinstance(answer, dict) and not answer["ok"] and answer["error"]["details"].get("reason") ==
            "reconciliation_failed" and ctx.remaining_ms() <= 0):
        return cp.fail(cp.Refusal("timeout_not_started", "the deadline passed before the outcome could be checked",
                                  reason="deadline_elapsed"), meta)
    return answer


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
