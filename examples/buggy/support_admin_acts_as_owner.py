#!/usr/bin/env python3
"""Bug: when a support_admin acts on another owner's resource, the call continues on behalf of the owner: the
downstream gets X-Subject-Id = the resource's owner_id instead of the caller.

Where it ships: support impersonation ("act as the customer") implemented by swapping the subject in the request
context. docs/protocol.md: "`X-Tenant-Id`, `X-Subject-Id` | the caller, from `auth`"; "Never take identity from the
arguments."

Expected checks: identity-propagated, on a support_admin scenario. Written blind in round 5
(examples/buggy/BLIND5.md).
"""

from correct import cp, serve


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    """The resource the call acts on (None for tools without one), or a Refusal."""
    self.check_caller(tool, arguments_hash, auth)
    binding = tool.entry.get("resource")
    if not binding or not isinstance(arguments.get(binding["argument"]), str):
        return None
    resource = self.lookup_resource(tool, arguments, ctx)
    if not cp.may_act_on(resource, auth):
        raise cp.Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
    if resource["owner_id"] != auth["subject_id"]:
        # BUG: a support admin acts on behalf of the customer who owns the resource: the downstream requests
        # carry the owner as X-Subject-Id.
        ctx.auth = dict(auth, subject_id=resource["owner_id"])
    return resource


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
