"""independent_node_status_query_old_request_id: The status query of a reconciliation carries the `X-Request-Id` of the
earlier attempt that sent the request (kept in the record to correlate logs), not the current envelope's.

Doc sentence it breaks: docs/conformance-app.md: `X-Request-Id` is the `meta.request_id` of the envelope this
request serves.

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    (
        '  if (!rec) {\n'
        "    rec = { key, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,\n"
        '      lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline, created_ms: now, outcome: null };\n'
    ),
    (
        '        const sq = fillTemplate(ds.status, plain, key);\n'
        '        const resp = await httpCall({ method: sq.method, path: sq.path, headers: idemHeaders, deadline });\n'
        '        const rmeta = { ...kmeta, reconciled: true };\n'
    ),
)
NEW = (
    (
        '  if (!rec) {\n'
        "    // BUG(node_status_query_old_request_id): the operation's request id (its first call's) is kept to correlate logs\n"
        "    rec = { key, request_id: meta.request_id, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,\n"
        '      lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline, created_ms: now, outcome: null };\n'
    ),
    (
        '        const sq = fillTemplate(ds.status, plain, key);\n'
        "        const resp = await httpCall({ method: sq.method, path: sq.path, headers: { ...idemHeaders, 'X-Request-Id': rec.request_id ?? meta.request_id }, deadline }); // BUG(node_status_query_old_request_id)\n"
        '        const rmeta = { ...kmeta, reconciled: true };\n'
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
