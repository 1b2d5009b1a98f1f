#!/usr/bin/env python3
"""Bug: the resource is loaded and its ownership checked before the caller's identity, so an invalid identity
naming another tenant's order is told `forbidden` (`resource_not_accessible`) instead of `unauthorized`.

Where it ships: a route that loads "the order this request is about" in a path dependency or a model binder,
which runs before the authentication middleware the handler relies on: a caller who is nobody gets the system
of record asked on its behalf and a verdict about the resource. docs/errors.md, unauthorized: "Checked before
anything else about authorization".

Expected checks: expectations (auth/identity_invalid_or_expired: an invalid identity naming a foreign order).
"""

from correct import cp, serve


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    binding = tool.entry.get("resource")
    if binding and isinstance(arguments.get(binding["argument"]), str):
        # BUG: the resource first, the caller after.
        resource = self.lookup_resource(tool, arguments, ctx)
        if not cp.may_act_on(resource, auth):
            raise cp.Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
        self.check_caller(tool, arguments_hash, auth)
        return resource
    self.check_caller(tool, arguments_hash, auth)
    return None


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
