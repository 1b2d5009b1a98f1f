"""Independent Node executor with one bug: calls are memoised by call_id as transport resends: a repeated call_id gets
the first call's envelope unchanged (its request_id, replayed false), whatever its arguments or business request id.

Where it ships: a de-duplication layer keyed by the model's tool-call id, written for clients that resend a line
after a reconnect.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '    execute(msg, lineValue)',
    'const openIds = new Set();',
)
NEW = (
    '    memoCall(msg, lineValue)',
    "const openIds = new Set();\n// a repeated call_id is a transport resend: answer it with the same envelope\nconst callMemo = new Map();\nfunction memoCall(msg, lineValue) {\n  const k = String(msg.call?.call_id ?? '');\n  if (!callMemo.has(k)) callMemo.set(k, execute(msg, lineValue));\n  return callMemo.get(k);\n}",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
