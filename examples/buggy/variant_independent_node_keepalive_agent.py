"""The independent Node executor with one legitimate freedom: a shared `http.Agent({keepAlive:true, maxSockets:64,
scheduling:'lifo'})` replaces `agent:false`.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '\nfunction httpCall({ method, path: p, headers, body, deadline }) {',
    '      method, path: fullPath, headers: h, agent: false,',
)
NEW = (
    "\n// Variant nv_keepalive_agent: one pooled keep-alive agent per protocol instead of a connection per request.\nconst AGENTS = new Map();\nfunction keepAliveAgent(mod) {\n  let a = AGENTS.get(mod);\n  if (!a) { a = new mod.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' }); AGENTS.set(mod, a); }\n  return a;\n}\n\nfunction httpCall({ method, path: p, headers, body, deadline }) {",
    '      method, path: fullPath, headers: h, agent: keepAliveAgent(mod),',
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
