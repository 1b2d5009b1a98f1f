"""Bug: a task poll whose job lookup answers 404 takes the job for the caller's own, not replicated yet, and
goes on to poll it, instead of answering forbidden (an unknown handle is then told apart from a foreign one)."""
from correct import cp, serve

_lookup_resource = cp.Executor.lookup_resource


def lookup_resource(self, tool, arguments, ctx):
    resource = _lookup_resource(self, tool, arguments, ctx)
    if resource is None and tool.entry.get("task") == "poll":
        # eventual consistency: a fresh job may not be visible to the lookup yet; treat it as the caller's
        return {"tenant_id": ctx.auth["tenant_id"], "owner_id": ctx.auth["subject_id"]}
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
