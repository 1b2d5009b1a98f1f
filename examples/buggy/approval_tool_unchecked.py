#!/usr/bin/env python3
"""Bug: an approval is checked for its subject, tenant, arguments hash, risk and expiry, but not its tool.

Where it ships: approvals keyed by "what the user agreed to about this account", so an approval of a data export
covers the account's deletion when the arguments are the same (`{"account_id": ...}`) and the risk was set high
enough. docs/errors.md, approval_required: an approval binds subject, tenant, tool, the SHA-256 of the canonical
arguments and the risk level; any difference refuses (`approval_mismatch`, `mismatch: tool`).

Expected checks: approval-bound and expectations (auth/approval_for_another_subject: an approval of
export_account_data with delete_account's arguments and risk).
"""

from correct import cp, serve

_check_approval = cp.Executor.check_approval


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is not None:
        # BUG: the approval's tool is never compared: it is taken to be the tool being called.
        auth = dict(auth, approval=dict(approval, tool=tool.name))
    return _check_approval(self, tool, arguments_hash, auth)


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
