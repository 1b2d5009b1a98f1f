"""VARIANT: a finished task's later polls authorize against the job record the final poll read, with no new lookup.

Behaviour: when a `task_status` poll keeps a handle's first final answer (as the example does), it also keeps the
job's ownership record (`tenant_id`, `owner_id`) that the same poll read with `GET /exports/{task_id}`. A later poll
of that handle by the same tenant checks identity, scopes and the ownership against the kept record (same owner, or
the support role in the same tenant, the same `forbidden` refusal otherwise) and answers the kept final answer
without sending anything. Polls of a handle with no kept final answer run as in the example.

Where it ships: API gateways and BFFs that cache immutable records (a finished job's owner never changes) and
answer from a result cache without a round trip.

Relies on docs/protocol.md (Task tools): "the first final poll answer of a handle is kept and answered to every
later poll"; conformance-app.md: "an executor keeps the first final answer ... and answers it to every later poll
of that handle"; a job's tenant and owner are fixed when it is created, and nothing in the docs sets how often a
resource must be read (docs/protocol.md only bounds re-sending reads, never requires them).
"""

from correct import cp, serve

_run_decoded = cp.Executor.run_decoded
_lookup_resource = cp.Executor.lookup_resource


def lookup_resource(self, tool, arguments, ctx):
    resource = _lookup_resource(self, tool, arguments, ctx)
    ctx.looked_up = resource
    return resource


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    if tool.entry.get("task") != "poll":
        return _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    final_key = (auth["tenant_id"], arguments.get("task_id"))
    owners = self.__dict__.setdefault("task_owners", {})
    with self.lock:
        kept, owner = self.task_finals.get(final_key), owners.get(final_key)
    if kept is not None and owner is not None:
        # VARIANT: the kept final answer, authorized against the kept job record; nothing is sent.
        self.check_caller(tool, arguments_hash, auth)
        if not cp.may_act_on(owner, auth):
            raise cp.Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
        return cp.succeed(kept, meta)
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    resource = getattr(ctx, "looked_up", None)
    with self.lock:
        if final_key in self.task_finals and isinstance(resource, dict) and final_key not in owners:
            owners[final_key] = {"tenant_id": resource["tenant_id"], "owner_id": resource["owner_id"]}
    return envelope


cp.Executor.lookup_resource = lookup_resource
cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
