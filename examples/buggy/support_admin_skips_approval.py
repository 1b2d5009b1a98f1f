"""Bug: a caller holding the support_admin role acts without the user's approval on
tools that require one ("support staff act for the user; there is no user to ask").

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

Refusal, now_ms, SUPPORT_ROLE = cp.Refusal, cp.now_ms, cp.SUPPORT_ROLE


def check_caller(self, tool, arguments_hash, auth):
    identity = auth["identity"]
    if not identity["valid"]:
        raise Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= now_ms():
        raise Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
    if missing:
        raise Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                      required_scopes=missing)
    # BUG(support_admin_skips_approval): support admins are trusted to act without an approval.
    if tool.entry.get("requires_approval") and SUPPORT_ROLE not in auth.get("roles", []):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
