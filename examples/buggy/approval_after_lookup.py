"""Bug: the approval is checked after the ownership lookup.

`Executor.authorize` checks identity, allowed tools and scopes, then loads the resource and checks ownership, and
only then the user's approval ("load the account first so the approval prompt can show what will be deleted").
A delete_account without a covering approval therefore reads GET /accounts/{id} before it is refused
approval_required.

Doc sentence broken: docs/protocol.md "Authorize from `auth` only: identity valid and unexpired (`unauthorized`),
tool allowed, scopes held, approval (below), resource owned"; docs/checks.md (rejection-has-no-effect) "A call
refused by authorization sends nothing either, except a refusal about the resource itself".

Where it ships: human-in-the-loop gates in agent frameworks that fetch the target object to render the approval
card, then run the approval check (LangGraph interrupts, custom MCP "confirm" flows).

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)
    resource = None
    binding = tool.entry.get("resource")
    if binding and isinstance(arguments.get(binding["argument"]), str):
        resource = self.lookup_resource(tool, arguments, ctx)
        if not cp.may_act_on(resource, auth):
            raise cp.Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
    # BUG: the approval comes last, after the resource was read.
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)
    return resource


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
