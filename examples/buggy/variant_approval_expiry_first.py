#!/usr/bin/env python3
"""Correct, written another way: an approval's expiry is checked before its binding, so an expired approval
that is also for other arguments answers `approval_expired` (the example: `approval_mismatch`). Either way it
is `approval_required` and nothing is sent.

Where it ships: approval services that reject expired tokens before reading their claims (JWT libraries check
`exp` first).

Permitted by docs/errors.md (approval_required): "the call carries none, or the approval does not cover this
exact operation, or it has expired ... any difference refuses", with `reason` one of `approval_missing`,
`approval_mismatch`, `approval_expired`; no order between the last two is given.

Expected: passes every check under --profile all (measured 2026-12-03: no scenario's approval is both expired
and mismatched).
"""

from correct import cp, serve

ORIGINAL_CHECK = cp.Executor.check_approval


def check_approval(self, tool, arguments_hash, auth):
    approval = auth.get("approval")
    if approval is not None and approval["expires_at_ms"] <= cp.now_ms():
        raise cp.Refusal("approval_required", "the approval has expired", reason="approval_expired",
                         tool=tool.name, approval_id=approval["approval_id"])
    ORIGINAL_CHECK(self, tool, arguments_hash, auth)


cp.Executor.check_approval = check_approval

if __name__ == "__main__":
    serve(__file__)
