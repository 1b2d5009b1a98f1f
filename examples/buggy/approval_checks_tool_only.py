#!/usr/bin/env python3
"""Bug: an approval is checked for its tool and expiry only, so one approval covers any arguments and any caller.

Where it ships: "human in the loop" gates that record that the user approved `delete_account` (a tool-level
permission prompt, as in many agent UIs), not which account, for whom, at which risk.

Expected catch: approval-bound and expectations (auth/approval_bound_to_arguments,
auth/approval_for_another_subject).
"""

from correct import cp, serve


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is None:
        raise cp.Refusal("approval_required", "this operation needs the user's approval",
                         reason="approval_missing", tool=tool.name)
    if approval["tool"] != tool.name:  # the bug: subject, tenant, arguments and risk are not compared
        raise cp.Refusal("approval_required", "the approval does not cover this exact operation",
                         reason="approval_mismatch", tool=tool.name, mismatch="tool",
                         approval_id=approval["approval_id"])
    if approval["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("approval_required", "the approval has expired", reason="approval_expired",
                         tool=tool.name, approval_id=approval["approval_id"])


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
