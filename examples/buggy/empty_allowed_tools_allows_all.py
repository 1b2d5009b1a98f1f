#!/usr/bin/env python3
"""Bug: an empty `allowed_tools` list (a token for no tools) is read as "no restriction" and allows every tool.

Where it ships: Python truthiness, `if allowed and name not in allowed:` (and JavaScript's `allowed?.length &&`);
the same confusion of "absent" with "empty" in OAuth scope lists and feature flags.

Expected catch: nothing today unless a scenario gives an empty allowed_tools list.
"""

from correct import cp, serve


def check_caller(self, tool, arguments_hash, auth):
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed and tool.name not in allowed:  # the bug: [] is falsy
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
