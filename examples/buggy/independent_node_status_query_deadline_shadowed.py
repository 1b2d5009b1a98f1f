"""Independent Node executor with one bug: the reconciliation block shadows the call's deadline.

Bug: the reconciliation block destructures the record, `const { deadline_ms: deadline } = rec`, to have "the
deadline" of the attempt being reconciled at hand; the new block-scoped `deadline` shadows the call's own deadline
for everything in the block, so the status query is bounded by, and tells the downstream in X-Deadline-Ms, the
earlier attempt's deadline. A retry that comes after that deadline (the usual case: errors.md tells callers to
reconcile later) never sends its status query: httpCall sees no time left and the retry answers
timeout_not_started, again and again; the operation is never reconciled. A retry before that deadline asks with
the earlier attempt's (shorter) time left.

Where it ships: destructuring a record into names that shadow an outer variable (`const { deadline_ms: deadline }`),
which lint rules such as no-shadow exist to catch.

Doc sentences: docs/protocol.md "One deadline per call: refuse to start after it (`timeout_not_started`), bound every
request by it"; "`X-Deadline-Ms` | the milliseconds left of the call's budget when the request is sent";
Reconciliation: "After an unknown outcome, the next attempt of the same business request first asks the tool's
`downstream.status` query".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    if (reconcile) {\n      if (ds.status) {"
NEW = (
    "    if (reconcile) {\n"
    "      // the attempt being reconciled: its deadline decides what \"not found\" proves\n"
    "      const { deadline_ms: deadline } = rec;\n"
    "      if (ds.status) {"
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
