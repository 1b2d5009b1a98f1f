#!/usr/bin/env python3
"""Correct, written another way: an approval's binding is compared field by field in the reverse order of the
example (`risk`, `arguments_hash`, `tool`, `tenant_id`, `subject_id`), so an approval that differs in several
fields names another one in `details.mismatch`. The refusal is the same `approval_required` /
`approval_mismatch`; nothing is sent.

Where it ships: any executor; a comparison loop's order is an implementation detail.

Permitted by docs/errors.md (approval_required): "`approval_mismatch` with `mismatch` naming the field:
`subject_id`, `tenant_id`, `tool`, `arguments_hash` or `risk`": a list of names, no order among them.

Expected: passes every check under --profile all (measured 2026-12-03: every scenario's approval differs in one
field).
"""

from correct import cp, serve

ORIGINAL_CHECK = cp.Executor.check_approval


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is not None:
        for field, matches in (("risk", approval["risk"] == tool.risk),
                               ("arguments_hash", approval["arguments_hash"] == arguments_hash),
                               ("tool", approval["tool"] == tool.name),
                               ("tenant_id", approval["tenant_id"] == auth["tenant_id"]),
                               ("subject_id", approval["subject_id"] == auth["subject_id"])):
            if not matches:
                raise cp.Refusal("approval_required", "the approval does not cover this exact operation",
                                 reason="approval_mismatch", tool=tool.name, mismatch=field,
                                 approval_id=approval["approval_id"])
    ORIGINAL_CHECK(self, tool, arguments_hash, auth)


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
