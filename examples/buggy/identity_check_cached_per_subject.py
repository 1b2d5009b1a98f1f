"""Bug: a successful identity check is remembered per (tenant, subject) for 5 minutes.

Later calls of the same subject skip the identity's validity and expiry check, so an identity the authentication
layer has since rejected, or one that has expired, still passes. Ships as token-introspection / auth-decision
caches keyed by the principal id instead of by the token (API gateways, dependency caches in web frameworks).
Breaks docs/protocol.md "Authorize from `auth` only: identity valid and unexpired (`unauthorized` ...)".
"""

from correct import changed_copy, cp, serve

cp.VERIFIED_SUBJECTS = {}  # (tenant, subject) -> verified until (Unix ms)

changed_copy(cp.Executor, "check_caller",
             """        if not identity["valid"]:
            raise Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
        if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= now_ms():
            raise Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
""",
             """        principal = (auth["tenant_id"], auth["subject_id"])
        if VERIFIED_SUBJECTS.get(principal, 0) <= now_ms():
            if not identity["valid"]:
                raise Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
            if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= now_ms():
                raise Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
            VERIFIED_SUBJECTS[principal] = now_ms() + 300000
""")

if __name__ == "__main__":
    serve(__file__)
