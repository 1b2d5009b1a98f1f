"""Independent Node executor with one bug: a status answer without a readable `status` counts as "not found".

Bug: the reconciliation reads the status query's answer with a destructuring default,
`const { status = 'not_found' } = body ?? {}`: a 200 whose body is not JSON, or is JSON without a `status`
member, is taken for "not found". Once the earlier attempt's deadline has passed, the retry sends the side effect
again, although nothing said the first one was not applied (a proxy's 200 page, a truncated answer, a changed
status API). A 404, a 5xx and a broken connection are still read correctly.

Where it ships: destructuring defaults used as "absent means not found" when reading a JSON answer.

Doc sentences: docs/errors.md dependency_unavailable: "the downstream (or ... the status query used for
reconciliation) could not be used" → `reason` `reconciliation_failed`; docs/protocol.md Reconciliation table (only
`completed`, `rejected`, `pending` and `404 {"status":"not_found"}` have a meaning); docs/errors.md timeout_unknown:
"The record becomes UNKNOWN and stays so until reconciled."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "const status = body ? body.status : undefined;"
NEW = "const { status = 'not_found' } = body ?? {};"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
