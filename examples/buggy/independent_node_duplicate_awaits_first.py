"""independent_node_duplicate_awaits_first: Single flight: a duplicate of an operation this process is still running
awaits the first call and answers its outcome (`replayed: true`) instead of `operation_in_progress`.

Doc sentence it breaks: docs/protocol.md lets a duplicate wait for the first call and replay its outcome, but within
its own deadline; this one waits however long the first call runs. Only a duplicate with a shorter budget than the
call it waits for shows it, and no step can send one while the first call runs.

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
        '      if (now < rec.lease_expires_ms && rec.owner === INSTANCE) {\n'
        "        return fail(err('operation_in_progress', { retry_after_ms: Math.max(0, rec.lease_expires_ms - now) }), kmeta);\n"
    ),
    (
        '\n'
        '  try {\n'
        '    if (reconcile) {\n'
    ),
    (
        "    return fail(err('internal_error', { sent: true }), kmeta);\n"
        '  }\n'
        '}\n'
        '\n'
        "const FINAL = new Set(['completed', 'cancelled', 'failed']);\n"
    ),
)
NEW = (
    (
        '      if (now < rec.lease_expires_ms && rec.owner === INSTANCE) {\n'
        '        // BUG(node_duplicate_awaits_first): single-flight: a duplicate awaits the running call and answers its outcome\n'
        '        const first = inflight.get(key);\n'
        '        if (first) {\n'
        '          const out = await first;\n'
        '          return out.ok ? okEnv(out.result, { ...kmeta, replayed: true }) : fail(out.error, { ...kmeta, replayed: true });\n'
        '        }\n'
        "        return fail(err('operation_in_progress', { retry_after_ms: Math.max(0, rec.lease_expires_ms - now) }), kmeta);\n"
    ),
    (
        '\n'
        '  const run = async () => { try {\n'
        '    if (reconcile) {\n'
    ),
    (
        "    return fail(err('internal_error', { sent: true }), kmeta);\n"
        '  } };\n'
        '  const envP = run();\n'
        '  inflight.set(key, envP);\n'
        '  envP.finally(() => { if (inflight.get(key) === envP) inflight.delete(key); });\n'
        '  return envP;\n'
        '}\n'
        'const inflight = new Map(); // BUG(node_duplicate_awaits_first): running operations by key\n'
        '\n'
        "const FINAL = new Set(['completed', 'cancelled', 'failed']);\n"
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
