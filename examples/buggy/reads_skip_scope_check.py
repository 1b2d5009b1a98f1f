#!/usr/bin/env python3
"""Bug: scopes are checked only for tools with side effects, so a caller without `orders:read` reads orders.

Where it ships: "read tools are harmless" policies: MCP servers and agent gateways that guard mutating tools
(write/destructive annotations) and let every read through.

Expected catch: nothing today unless a scenario calls a read tool without its scope.
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
    if tool.side_effect:  # the bug: reads need no scope
        missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
        if missing:
            raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                             required_scopes=missing)
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
