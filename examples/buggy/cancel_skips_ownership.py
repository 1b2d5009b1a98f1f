"""Bug: the task cancel tool skips the ownership lookup of its handle ("a cancel is best
effort; the export service knows its own jobs"), so any caller with the scope can cancel any tenant's export.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

Refusal, may_act_on = cp.Refusal, cp.may_act_on


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    self.check_caller(tool, arguments_hash, auth)
    binding = tool.entry.get("resource")
    if not binding or not isinstance(arguments.get(binding["argument"]), str):
        return None
    if tool.entry.get("task") == "cancel":  # BUG(cancel_skips_ownership): no lookup for a cancel
        return None
    resource = self.lookup_resource(tool, arguments, ctx)
    if not may_act_on(resource, auth):
        raise Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
    return resource


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
