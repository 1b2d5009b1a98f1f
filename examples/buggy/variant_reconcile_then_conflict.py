"""Correct variant: a changed call that meets an UNKNOWN record reconciles it first, then answers the conflict.

What it does differently: when the same business request comes back with other arguments and the stored record's
outcome is unknown (UNKNOWN, or IN_PROGRESS past its lease), the example answers `idempotency_conflict` at once.
This variant first asks the tool's status query by the key and records what it learns (completed, rejected, or
"not found after the deadline": retryable again), exactly as a retry would, and then answers
`idempotency_conflict` to the changed call. It never answers the changed call with the first call's outcome, never
sends the side effect for it, and does not mark the conflict `reconciled` (the conflict's outcome was not
established by the query).

Where it ships: repositories whose "load the record" step resolves unknown states before the request is compared
(reconcile-on-read), so every caller sees a settled record.

Docs relied on:
- scenario idempotency/changed_after_unknown_outcome: "Reconciling first is allowed, but the first refund's result
  is never the answer to a call that asked for another amount."
- docs/protocol.md, What the executor must do, step 3: "the same business request with other arguments is
  `idempotency_conflict`; ... an unknown one is reconciled before anything is sent again."
- docs/errors.md idempotency_conflict: "Nothing is executed; the stored record is left as it was." (the record's
  arguments and key stay; only its unknown outcome is settled by asking, which executes nothing)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(
    cp.Executor, "claim",
    """            if stored_fingerprint != fingerprint:
                return fail(""",
    """            if stored_fingerprint != fingerprint:
                if state == "IN_PROGRESS" and record_lease <= now_ms():
                    if self.compare_and_set(key, (state, epoch), "UNKNOWN", outcome):
                        state = "UNKNOWN"
                if state == "UNKNOWN":
                    # settle the earlier attempt's unknown outcome first; its answer is not this call's
                    self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, dict(meta))
                return fail(""",
)

if __name__ == "__main__":
    serve(__file__)
