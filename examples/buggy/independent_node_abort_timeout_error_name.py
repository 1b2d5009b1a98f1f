"""Independent Node executor with one bug: the downstream deadline is AbortSignal.timeout() and a timeout is recognised
by e.name === 'TimeoutError', but Node's http rejects with an AbortError, so an ownership lookup that outlives the
budget answers dependency_unavailable, not timeout_not_started.

Where it ships: code that moves from a hand-made timer to AbortSignal.timeout() and tests the error the fetch API
documents, not the one http.request raises.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); resolve(r); } };',
    '      method, path: fullPath, headers: h, agent: false,',
    "    const timer = setTimeout(() => { timedOut = true; req.destroy(new Error('deadline')); }, remaining);\n",
    "    req.on('error', (e) => finish({ kind: 'error', sent: connected, timedOut, code: e.code }));",
)
NEW = (
    '    const finish = (r) => { if (!done) { done = true; resolve(r); } };',
    '      method, path: fullPath, headers: h, agent: false, signal: AbortSignal.timeout(remaining),',
    '',
    "    req.on('error', (e) => { timedOut = e.name === 'TimeoutError'; finish({ kind: 'error', sent: connected, timedOut, code: e.code }); });",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
