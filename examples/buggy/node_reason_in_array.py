"""node_reason_in_array: the rejection reason's membership in `rejection_reasons` is tested with `in`.

Behaviour: `reason in tool.entry.rejection_reasons` on an array tests its indexes ("0", "1", "length"), not its
members, so every reason the catalog lists is replaced by the default (`downstream_rejected`, or `not_found` for a
404) in business_rejected answers, including reconciled rejections.

Where it ships: JS/TS code that checks array membership with `in` (a Python habit), a perennial review miss.

Doc sentence it breaks: docs/protocol.md "404, 409, 422 `{"error": {"reason", "field"}}` | refused for good |
`business_rejected`; `details.reason` only if the catalog's `rejection_reasons` lists it (else `not_found` /
`downstream_rejected`)"; docs/errors.md business_rejected "`reason`, a stable snake_case reason defined by the tool".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "    if (!(tool.entry.rejection_reasons || []).includes(reason)) reason = defaultReason;"
# BUG: `in` on an array looks at indexes, not values.
NEW = "    if (!(reason in (tool.entry.rejection_reasons || []))) reason = defaultReason; // BUG: `in` tests indexes"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
