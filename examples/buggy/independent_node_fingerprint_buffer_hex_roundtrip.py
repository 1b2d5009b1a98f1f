"""Independent Node executor with one bug: the claim in execute() stores the arguments' fingerprint as the raw SHA-256
Buffer and compares rec.fingerprint.toString('hex'); the JSON file store turns the Buffer into
{type:'Buffer',data:[...]}, so after a restart the comparison fails.

Where it ships: where crypto digests are kept as Buffers and records persisted with JSON.stringify.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    "    rec = { key, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,",
    "    if (rec.fingerprint !== argsHash) return fail(err('idempotency_conflict', { reason: 'arguments_changed' }), kmeta);",
)
NEW = (
    "    rec = { key, fingerprint: argsHashRaw, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,",
    "    if (rec.fingerprint.toString('hex') !== argsHash) return fail(err('idempotency_conflict', { reason: 'arguments_changed' }), kmeta);",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
