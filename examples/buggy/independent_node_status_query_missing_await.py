"""The reconciliation's status query is not awaited: the code reads fields of a Promise and always answers
dependency_unavailable reconciliation_failed while the query is still sent. Breaks docs/protocol.md's
Reconciliation table ('200 completed -> the result, meta.reconciled = true; record it')."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    'const resp = await httpCall({ method: sq.method, path: sq.path, headers: idemHeaders, deadline });',
)
NEW = (
    'const resp = httpCall({ method: sq.method, path: sq.path, headers: idemHeaders, deadline }); // BUG(status_query_missing_await)',
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
