#!/usr/bin/env python3
"""Bug: scopes are checked by substring of the space-separated scope string.

Where it ships: OAuth 2.0 carries scopes as one space-separated string (`scope` claim); `if "refunds:write" in
token.scope` is the one-liner that ships, and it accepts `refunds:write_own`, `admin:refunds:write` or
`refunds:write:sandbox` as `refunds:write`. docs/errors.md forbidden (`missing_scope`): a required scope must be
held, and the scope is an exact string.

Expected check: expectations (forbidden / missing_scope pinned) and rejection-has-no-effect, in a scenario whose
caller holds a scope that contains the required one as a substring but is not it.
"""

from correct import cp, serve


def check_caller(self, tool, arguments_hash, auth):
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    # BUG: substring of the joined scope string, not membership of the list.
    granted = " ".join(auth.get("scopes", []))
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in granted]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
