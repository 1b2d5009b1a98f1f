"""Bug: another owner's resource in the caller's own tenant is refused with a distinct,
"helpful" reason `not_owner`; missing and other-tenant resources keep `resource_not_accessible`.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

Refusal, may_act_on = cp.Refusal, cp.may_act_on


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    self.check_caller(tool, arguments_hash, auth)
    binding = tool.entry.get("resource")
    if not binding or not isinstance(arguments.get(binding["argument"]), str):
        return None
    resource = self.lookup_resource(tool, arguments, ctx)
    if not may_act_on(resource, auth):
        # BUG(other_owner_told_apart): inside the caller's tenant, say that the resource is someone else's.
        if resource is not None and resource["tenant_id"] == auth["tenant_id"]:
            raise Refusal("forbidden", "the resource belongs to another user", reason="not_owner")
        raise Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
    return resource


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
