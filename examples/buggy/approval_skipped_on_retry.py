"""The approval is checked only on a business request's first attempt; retries skip it.

Behaviour: the approval check runs only when `attempt == 1`, on the reasoning that a retry repeats an operation the
user already approved. But an approval refusal creates no idempotency record, so when the first attempt was refused
(`approval_required`: none presented, another operation's, expired) a retry with `attempt >= 2` and the same
business request id runs the destructive call with no valid approval at all. Identity, allowed tools, scopes and
ownership are still checked.

Where it ships: agent frameworks and chat UIs that prompt for approval once per operation and let the retry path
(attempt counters, "resume" buttons) skip the prompt.

Doc sentence it breaks: docs/protocol.md, Canonical JSON and the approval hash: "An approval covers one exact
operation: approval.arguments_hash ... must equal the hash of the call's decoded arguments (also subject_id,
tenant_id, tool, risk must match, and expires_at_ms must be in the future; otherwise approval_required" and
docs/errors.md, approval_required: "the tool requires a user's approval ... and the call carries none".
"""

from correct import cp, serve


def execute(self, message, received):
    call, auth = message["call"], message["auth"]
    deadline = received + message["budget_ms"] / 1000
    ctx = cp.Context(self.next_request_id(), auth, deadline)
    ctx.attempt = message["attempt"]  # plumbing: the authorization step reads the attempt
    meta = {"request_id": ctx.request_id, "call_id": call["call_id"], "attempt": message["attempt"],
            "replayed": False}
    try:
        return self.pipeline(call, auth, message.get("business_request_id"), ctx, meta)
    except cp.Refusal as refusal:
        return cp.fail(refusal, meta)


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    """The resource the call acts on (None for tools without one), or a Refusal."""
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
    # BUG: only the first attempt asks for the approval; a retry is taken to be approved already.
    if tool.entry.get("requires_approval") and ctx.attempt == 1:
        self.check_approval(tool, arguments_hash, auth)
    binding = tool.entry.get("resource")
    if not binding or not isinstance(arguments.get(binding["argument"]), str):
        return None
    resource = self.lookup_resource(tool, arguments, ctx)
    if not cp.may_act_on(resource, auth):
        raise cp.Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
    return resource


cp.Executor.execute = execute
cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
