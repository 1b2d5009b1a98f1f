#!/usr/bin/env python3
"""Bug: a held `X:write` scope is taken to grant `X:read` too, so a caller with `exports:write` but without
`exports:read` may poll `task_status`.

Where it ships: scope hierarchies ("write implies read") copied from API gateway or RBAC configs.
docs/protocol.md: "Authorize from `auth` only: identity valid and unexpired, tool allowed, scopes held";
docs/errors.md, forbidden: "a required scope is missing" (`missing_scope`); the catalog's task_status requires
`exports:read`.

Expected checks: only a scenario in which a write-only caller polls (likely missed). Written blind in round 4
(examples/buggy/BLIND4.md).
"""

from correct import cp, serve


def _expanded(scopes):
    held = set(scopes)
    for scope in scopes:
        if scope.endswith(":write"):
            held.add(scope[: -len(":write")] + ":read")  # BUG: write implies read
    return held


def check_caller(self, tool, arguments_hash, auth):
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    # BUG: the scopes held are expanded first, so exports:write counts as exports:read.
    held = _expanded(auth.get("scopes", []))
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in held]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
