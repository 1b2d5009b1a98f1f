#!/usr/bin/env python3
"""Bug: an approval is checked for its subject, tool, arguments hash, risk and expiry, but not its tenant.

Where it ships: approval records looked up by user id in a system where user ids "are globally unique", so the
tenant comparison is left out as redundant, until two tenants share an identity provider's subject ids (or a
tenant is migrated). docs/protocol.md: an approval binds subject, tenant, tool, the SHA-256 of the canonical
arguments and the risk level; "any difference refuses" (`approval_mismatch`, `mismatch: tenant_id`).

Expected checks: approval-bound (a deletion under an approval of another tenant), expectations, in a scenario
whose approval names the caller's subject in another tenant.
"""

from correct import cp, serve


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is None:
        raise cp.Refusal("approval_required", "this operation needs the user's approval",
                         reason="approval_missing", tool=tool.name)
    # BUG: no ("tenant_id", ...) row: the subject id is taken to name one person everywhere.
    for field, matches in (("subject_id", approval["subject_id"] == auth["subject_id"]),
                           ("tool", approval["tool"] == tool.name),
                           ("arguments_hash", approval["arguments_hash"] == arguments_hash),
                           ("risk", approval["risk"] == tool.risk)):
        if not matches:
            raise cp.Refusal("approval_required", "the approval does not cover this exact operation",
                             reason="approval_mismatch", tool=tool.name, mismatch=field,
                             approval_id=approval["approval_id"])
    if approval["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("approval_required", "the approval has expired", reason="approval_expired",
                         tool=tool.name, approval_id=approval["approval_id"])


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
