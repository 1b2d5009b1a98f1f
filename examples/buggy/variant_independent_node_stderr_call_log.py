"""The independent Node executor with one legitimate freedom: one JSON log line per answered call on stderr (id, tool,
outcome code, replayed, ms; never arguments).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '    inFlight++;\n    execute(msg, lineValue)',
    "        send({ type: 'result', id, envelope });\n        openIds.delete(id);",
)
NEW = (
    '    inFlight++;\n    const startedAt = Date.now();\n    execute(msg, lineValue)',
    "        send({ type: 'result', id, envelope });\n        // Variant nv_stderr_call_log: one structured line per answered call on stderr (never the arguments)\n        process.stderr.write(JSON.stringify({ level: 'info', msg: 'call answered', id, tool: String(msg.call?.name ?? '').slice(0, 64),\n          outcome: envelope.ok ? 'ok' : envelope.error.code, replayed: !!envelope.meta?.replayed, ms: Date.now() - startedAt }) + '\\n');\n        openIds.delete(id);",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
