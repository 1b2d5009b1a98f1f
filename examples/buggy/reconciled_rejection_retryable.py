#!/usr/bin/env python3
"""Bug: a status query that says rejected is answered business_rejected but recorded FAILED_RETRYABLE, so the next
retry takes the key back and sends the side effect again instead of replaying the rejection.

Where it ships: reconcilers that map every "not applied" status answer to the retryable state (the same table as a
5xx). docs/errors.md, business_rejected: "The rejection is stored for its business request"; docs/protocol.md: "a
finished one is replayed (`meta.replayed = true`)".

Expected checks: expectations, on a retry after a reconciled rejection; maybe single-effect if the resend commits.
Written blind in round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve

_reconcile = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    answer = _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    if isinstance(answer, dict) and not answer["ok"] and answer["meta"].get("reconciled") \
            and answer["error"]["code"] == "business_rejected":
        # BUG: "the downstream refused it, nothing was applied: let the caller try again": the reconciled
        # rejection's record is turned back from FAILED_FINAL to FAILED_RETRYABLE.
        with self.lock:
            record = self.records.get(key)
            if record is not None and record.state == "FAILED_FINAL" and record.epoch == version[1]:
                record.state = "FAILED_RETRYABLE"
    return answer


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
