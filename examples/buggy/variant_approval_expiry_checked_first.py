"""Correct variant: an approval's expiry is checked before what it covers.

What it does differently: the example compares the approval's subject, tenant, tool, arguments hash and risk first
and its expiry last, so an approval that is both expired and issued for something else answers
`approval_mismatch`. This variant asks "is the approval still valid?" first: an expired approval answers
`approval_required` with `reason: approval_expired` whatever else it covers (the example's own expiry check after
the loop is left in place and is then never reached). A valid approval is judged exactly as before; every
refusal is still `approval_required`, nothing is sent.

Where it ships: wherever a token-like grant is validated like a JWT: `exp` first (PyJWT, jose libraries raise
ExpiredSignatureError before any claim is compared), then the claims.

Docs relied on:
- docs/errors.md approval_required: "the call carries none, or the approval does not cover this exact operation,
  or it has expired. ... any difference refuses." Details: "`reason` (`approval_missing`, `approval_mismatch` with
  `mismatch` naming the field ..., or `approval_expired`)". No order between the reasons is given.
- docs/protocol.md, Canonical JSON and the approval hash: "(also subject_id, tenant_id, tool, risk must match,
  and expires_at_ms must be in the future; otherwise approval_required with details.reason and details.mismatch)".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(
    cp.Executor, "check_approval",
    """        for field, matches in (""",
    """        if approval["expires_at_ms"] <= now_ms():
            raise Refusal("approval_required", "the approval has expired", reason="approval_expired",
                          tool=tool.name, approval_id=approval["approval_id"])
        for field, matches in (""",
)

if __name__ == "__main__":
    serve(__file__)
