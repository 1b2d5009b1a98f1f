"""VARIANT: a failed ownership lookup or status query says which status the downstream answered.

Behaviour: `dependency_unavailable` with `reason: resource_lookup_failed` (the lookup of `downstream.resource`) or
`reason: reconciliation_failed` (the status query) also carries `details.downstream_status` whenever the downstream
answered that request (a 5xx, a redirect, a 2xx whose body is unusable), as the example already does for the tool's
own request. When nothing answered (not sent, no answer) there is no status and none is given.

Where it ships: executors that attach the upstream status to every dependency error for operators and dashboards.

Relies on docs/errors.md dependency_unavailable: "the downstream (or the system of record consulted for
authorization, or the status query used for reconciliation) could not be used ... Details: `reason`: ...
`resource_lookup_failed` or `reconciliation_failed`; `downstream_status` when the downstream answered."
"""

from correct import cp, serve

_send = cp.Downstream.send
_lookup_resource = cp.Executor.lookup_resource
_reconcile = cp.Executor.reconcile


def send(self, template, arguments, ctx, key=None):
    ctx.answered_status = None
    answer = _send(self, template, arguments, ctx, key)
    ctx.answered_status = answer[0]
    return answer


def lookup_resource(self, tool, arguments, ctx):
    try:
        return _lookup_resource(self, tool, arguments, ctx)
    except cp.Refusal as refusal:
        status = getattr(ctx, "answered_status", None)
        if refusal.details.get("reason") == "resource_lookup_failed" and status is not None:
            # VARIANT: the status the system of record answered.
            refusal.details["downstream_status"] = status
        raise


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    ctx.answered_status = None
    envelope = _reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)
    status = getattr(ctx, "answered_status", None)
    if (isinstance(envelope, dict) and not envelope["ok"] and status is not None
            and envelope["error"]["details"].get("reason") == "reconciliation_failed"):
        # VARIANT: the status the status query answered.
        envelope["error"]["details"]["downstream_status"] = status
    return envelope


cp.Downstream.send = send
cp.Executor.lookup_resource = lookup_resource
cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
