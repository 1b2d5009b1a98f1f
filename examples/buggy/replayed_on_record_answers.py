#!/usr/bin/env python3
"""Bug: every answer the idempotency layer gives without executing (idempotency_conflict, operation_in_progress,
retry_budget_exhausted, reconciled answers) is flagged meta.replayed = true.

Where it ships: idempotency middlewares that set an "idempotent-replayed" flag whenever the request was answered
from the idempotency store rather than by the handler. docs/envelope.schema.json, meta.replayed: "True when the
answer is the stored outcome of an earlier attempt" (a conflict, an in-progress answer or a reconciliation is not).

Expected checks: expectations, where a step pins `replayed = false` on a conflict, an in-progress or a reconciled
answer (else missed). Written blind in round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve

_claim = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    """The held (key, version) to execute under, or an envelope to answer now."""
    claimed = _claim(self, key, fingerprint, tool, arguments, ctx, meta)
    # BUG: any answer from the idempotency layer (not executed) is marked replayed, stored outcome or not.
    if isinstance(claimed, dict):
        claimed["meta"]["replayed"] = True
    return claimed


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
