"""A caller with the role `support_admin` skips the scope check.

Behaviour: the authorization step treats `support_admin` as "support can do anything in its tenant": the
required-scope check is skipped for it. Identity, the allowed-tools list and approvals are still checked, and so is
the resource's tenant (the support role still never crosses tenants), so the change shows only when a support
admin calls a tool without holding its scope: the call runs instead of answering `forbidden`
(`missing_scope`).

Where it ships: admin bypasses in RBAC middleware (`if "admin" in roles: return`), support consoles whose role was
meant to lift ownership and ended up lifting permissions.

Doc sentence it breaks: docs/errors.md, forbidden: "the identity is valid but may not do this: ... a required scope
is missing, or the resource the call acts on belongs to ... another owner (a configured support role may act for
other owners of its own tenant, never across tenants)": the support role lifts the owner rule only (docs/protocol.md:
"The owner must be the caller, unless the caller holds the role support_admin"), never the scopes.
"""

from correct import cp, serve


def check_caller(self, tool, arguments_hash, auth):
    """Identity, allowed tools, scopes and approval: everything the trusted context alone decides."""
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
        raise cp.Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
    # BUG: the support role is taken to hold every scope of its tenant.
    if cp.SUPPORT_ROLE not in auth.get("roles", []):
        missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
        if missing:
            raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                             required_scopes=missing)
    if tool.entry.get("requires_approval"):
        self.check_approval(tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
