"""Independent Node executor with one bug: the sending attempt's deadline kept in a WeakMap keyed by the record.

Bug: the deadline of the attempt that sent the side-effecting request is attached to the record object with a
`WeakMap` (metadata beside the record instead of in it). Every transition of the record replaces it with a spread
copy (`{ ...cur, state }`), a new object, so when a retry reconciles an UNKNOWN record the lookup by the current
record object misses: the earlier deadline is `undefined`, counted as passed (`?? 0`), and a 404 from the status
query is taken as proof that nothing was applied: the operation is sent again at once, while the earlier request
may still land.

Where it ships: attaching side data to objects with a WeakMap/Map keyed by object identity, in a code base that
updates its records immutably with spread copies.

Doc sentence: docs/protocol.md, Reconciliation: "`404 {"status":"not_found"}` | before the earlier attempt's
deadline: `operation_in_progress` (`reason: awaiting_earlier_deadline`); after it: send again with the same key".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    "const MAX_BODY = 1024 * 1024;",
    "const earlierDeadline = rec.deadline_ms;",
    "    // 6. call the downstream\n",
)
NEW = (
    "const MAX_BODY = 1024 * 1024;\n"
    "const SENT_DEADLINE = new WeakMap(); // record -> deadline of the attempt that sent its request",
    "const earlierDeadline = SENT_DEADLINE.get(rec);",
    "    // 6. call the downstream\n"
    "    SENT_DEADLINE.set(store.get(key), deadline);\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
