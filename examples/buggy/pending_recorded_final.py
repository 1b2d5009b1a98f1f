"""Reconciliation that finds the downstream still `pending` records its `operation_in_progress` answer as the
record's final outcome: every later attempt of the business request replays that answer (meta.replayed = true)
and never asks the status query again, so the caller polls forever although the operation completed meanwhile.

Where it ships: idempotency middleware that stores "whatever the reconcile step answered" under the key, the way
it stores the answers of completed and rejected reconciliations.

Breaks docs/protocol.md (Reconciliation): `200 {"status":"pending"}` -> `operation_in_progress` (reason
downstream_pending), a transient answer (docs/errors.md: "wait retry_after_ms and ask again with the same business
request id"); only completed ("record it") and rejected settle the record.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_reconcile = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    answer = _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    if answer is not None and not answer["ok"] and answer["error"]["details"].get("reason") == "downstream_pending":
        # BUG: the pending answer is recorded as the operation's final outcome
        self.compare_and_set(key, version, "FAILED_FINAL", answer)
    return answer


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
