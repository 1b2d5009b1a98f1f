"""The identity's `expires_at_ms` is compared with the clock in seconds, so expired identities pass.

Behaviour: the authorization step checks expiry the JWT way, `expires_at <= time.time()`, against a field that the
protocol gives in Unix milliseconds. Any millisecond timestamp of this century is a thousand times larger than "now"
in seconds, so an identity that expired an hour (or a year) ago is taken as unexpired and the call runs;
`identity.valid = false` is still refused.

Where it ships: auth middleware written for JWT `exp` claims (seconds since the epoch) and reused for a context
whose times are in milliseconds (JavaScript `Date.now()`, Java `currentTimeMillis`).

Doc sentence it breaks: docs/protocol.md, execute: "`auth`: ... `identity {valid, expires_at_ms?}` ... Times are
Unix ms." and docs/errors.md, unauthorized: "the caller's identity ... is not valid or has expired"
(`reason: identity_expired`).
"""

import time

from correct import cp, serve


def check_caller(self, tool, arguments_hash, auth):
    """Identity, allowed tools, scopes and approval: everything the trusted context alone decides."""
    identity = auth["identity"]
    if not identity["valid"]:
        raise cp.Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
    # BUG: compared with the clock in seconds (the JWT `exp` habit); expires_at_ms is in milliseconds.
    if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= time.time():
        raise cp.Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
    allowed = auth.get("allowed_tools")
    if allowed is not None and tool.name not in allowed:
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
