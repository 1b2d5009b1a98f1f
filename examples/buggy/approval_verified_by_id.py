"""Bug: an approval that passed verification once is memoised by its approval_id.

Later calls presenting the same approval id skip the comparison of subject, tenant, tool, arguments hash, risk and
expiry, so one approved operation's approval covers whatever later call carries its id. Ships as a
functools.lru_cache / dict memo around `verify_approval(approval_id)` in human-in-the-loop approval clients.
Breaks docs/protocol.md "An approval covers one exact operation: `approval.arguments_hash` ... must equal the hash
of the call's decoded arguments (also `subject_id` and `tenant_id` must be the caller's ...)".
"""

from correct import cp, serve

cp.APPROVED_IDS = set()
_verify = cp.Executor.check_approval


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is not None and approval["approval_id"] in cp.APPROVED_IDS:
        return  # verified before
    _verify(self, tool, arguments_hash, auth)
    cp.APPROVED_IDS.add(approval["approval_id"])


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
