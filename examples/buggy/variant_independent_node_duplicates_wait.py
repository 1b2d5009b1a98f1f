"""The independent Node executor with one legitimate freedom: a duplicate of a live attempt in the same process waits
for it (polling every 25 ms, within its own deadline) and replays a final outcome. If the first is still running at
the duplicate's deadline, or ended retryable or unknown, it answers `operation_in_progress`.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    if (rec.fingerprint !== argsHash) return fail(err('idempotency_conflict', { reason: 'arguments_changed' }), kmeta);\n    if (rec.state === 'SUCCEEDED') return okEnv(rec.outcome.result, { ...kmeta, replayed: true });"
NEW = "    if (rec.fingerprint !== argsHash) return fail(err('idempotency_conflict', { reason: 'arguments_changed' }), kmeta);\n    // Variant nv_duplicates_wait: a duplicate of a running attempt of this process waits for it (within its own\n    // deadline) and replays a final outcome; otherwise it answers operation_in_progress as before.\n    if (rec.state === 'IN_PROGRESS' && rec.owner === INSTANCE && now < rec.lease_expires_ms) {\n      let cur = rec;\n      while (cur && cur.state === 'IN_PROGRESS' && cur.owner === INSTANCE && Date.now() < cur.lease_expires_ms && Date.now() + 25 < deadline) {\n        await new Promise((r) => setTimeout(r, 25));\n        cur = store.get(key);\n      }\n      if (cur && cur.state === 'SUCCEEDED') return okEnv(cur.outcome.result, { ...kmeta, replayed: true });\n      if (cur && cur.state === 'FAILED_FINAL') return fail(cur.outcome.error, { ...kmeta, replayed: true });\n      const t = Date.now();\n      const left = cur && cur.state === 'IN_PROGRESS' ? Math.max(0, cur.lease_expires_ms - t) : 100;\n      return fail(err('operation_in_progress', { retry_after_ms: left }), kmeta);\n    }\n    if (rec.state === 'SUCCEEDED') return okEnv(rec.outcome.result, { ...kmeta, replayed: true });"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
