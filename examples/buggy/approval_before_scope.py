"""Bug: the approval gate runs before the allowed-tools and scope checks.

`Executor.check_caller` checks the identity, then the user's approval (the human-in-the-loop gate), and only
then whether the tool is allowed and the scopes are held. A caller who may not use delete_account at all (no
`accounts:delete`, or a token not issued for the tool) and has no approval is told approval_required (ask_user:
"get the user to approve it") instead of forbidden (stop).

Doc sentence broken: docs/protocol.md "Authorize from `auth` only: identity valid and unexpired (`unauthorized`),
tool allowed, scopes held, approval (below), resource owned".

Where it ships: agent frameworks whose confirmation step wraps the tool (interrupt before a destructive tool)
while the policy check lives inside the tool or the API client, so the gate fires first.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve


def check_caller(self, tool, arguments_hash, auth):
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    # BUG: the approval gate before the policy checks.
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
