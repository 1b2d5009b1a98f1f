#!/usr/bin/env python3
"""Bug: the approval's expiry (Unix milliseconds) is compared with the time in seconds, so approvals never expire.

Where it ships: `expires_at_ms <= time.time()` next to a JWT-style `exp` in seconds; unit mix-ups between
seconds and milliseconds in expiry checks are a classic (tokens, presigned URLs, approvals).

Expected catch: approval-bound and expectations (auth/approval_missing_or_expired).
"""

import time

from correct import cp, serve


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is None:
        raise cp.Refusal("approval_required", "this operation needs the user's approval",
                         reason="approval_missing", tool=tool.name)
    for field, matches in (("subject_id", approval["subject_id"] == auth["subject_id"]),
                           ("tenant_id", approval["tenant_id"] == auth["tenant_id"]),
                           ("tool", approval["tool"] == tool.name),
                           ("arguments_hash", approval["arguments_hash"] == arguments_hash),
                           ("risk", approval["risk"] == tool.risk)):
        if not matches:
            raise cp.Refusal("approval_required", "the approval does not cover this exact operation",
                             reason="approval_mismatch", tool=tool.name, mismatch=field,
                             approval_id=approval["approval_id"])
    if approval["expires_at_ms"] <= time.time():  # the bug: seconds against milliseconds
        raise cp.Refusal("approval_required", "the approval has expired", reason="approval_expired",
                         tool=tool.name, approval_id=approval["approval_id"])


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
