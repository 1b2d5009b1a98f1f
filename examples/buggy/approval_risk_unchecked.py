#!/usr/bin/env python3
"""Bug: the approval's `risk` is never compared with the tool's risk (the tool is assumed to determine it).

Where it ships: confirmation layers that bind the tool and the arguments and keep the risk level as display
metadata. docs/protocol.md: "also `subject_id`, `tenant_id`, `tool`, `risk` must match"; docs/errors.md,
approval_required: "An approval binds subject, tenant, tool, the SHA-256 of the canonical arguments, and the risk
level; any difference refuses."

Expected checks: approval-bound and expectations, if a scenario presents an approval with another risk (else
missed). Written blind in round 4 (examples/buggy/BLIND4.md).
"""

from correct import cp, serve


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is None:
        raise cp.Refusal("approval_required", "this operation needs the user's approval",
                         reason="approval_missing", tool=tool.name)
    # BUG: subject, tenant, tool and arguments are compared, the risk is not.
    for field, matches in (("subject_id", approval["subject_id"] == auth["subject_id"]),
                           ("tenant_id", approval["tenant_id"] == auth["tenant_id"]),
                           ("tool", approval["tool"] == tool.name),
                           ("arguments_hash", approval["arguments_hash"] == arguments_hash)):
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
