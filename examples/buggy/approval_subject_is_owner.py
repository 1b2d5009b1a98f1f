"""Buggy executor: an approval's subject is compared with the resource's owner, not the caller.

Changed place: `Executor.authorize` (examples/python/callproof_executor.py). The approval's tenant, tool, hash,
risk and expiry are checked as before (before the lookup), but its `subject_id` is checked after the ownership
lookup against the resource's `owner_id` ("the owner consented"): a `support_admin` acting on another user's
account passes with that user's approval and is refused with an approval of their own.
Where teams ship it: back-office flows that model an approval as the account owner's consent.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "authorize",
             '''        self.check_caller(tool, arguments_hash, auth)''',
             '''        approval = auth.get("approval")
        if approval is not None:  # BUG: the subject is checked against the owner below, not against the caller
            auth = dict(auth, approval=dict(approval, subject_id=auth["subject_id"]))
        self.check_caller(tool, arguments_hash, auth)
        if approval is not None and tool.entry.get("requires_approval") and tool.entry.get("resource"):
            resource = self.lookup_resource(tool, arguments, ctx)
            if not may_act_on(resource, auth):
                raise Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
            if approval["subject_id"] != resource["owner_id"]:
                raise Refusal("approval_required", "the approval does not cover this exact operation",
                              reason="approval_mismatch", tool=tool.name, mismatch="subject_id",
                              approval_id=approval["approval_id"])
            return resource''')

if __name__ == "__main__":
    serve(__file__)
