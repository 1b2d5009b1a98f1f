"""Independent Node executor with one bug: httpCall() uses a keep-alive agent and resends any request that fails with
ECONNRESET on a reused socket, POSTs included.

Where it ships: from the request.reusedSocket retry example of Node's http docs.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '\nfunction httpCall({ method, path: p, headers, body, deadline }) {',
    '      method, path: fullPath, headers: h, agent: false,',
    "    req.on('error', (e) => finish({ kind: 'error', sent: connected, timedOut, code: e.code }));",
)
NEW = (
    '\nconst KEEP_ALIVE = new http.Agent({ keepAlive: true });\n\nfunction httpCall({ method, path: p, headers, body, deadline }) {',
    '      method, path: fullPath, headers: h, agent: KEEP_ALIVE,',
    "    req.on('error', (e) => {\n      // a kept-alive socket the server closed meanwhile: send again on a fresh one (Node docs, request.reusedSocket)\n      if (!done && !timedOut && req.reusedSocket && e.code === 'ECONNRESET') {\n        done = true; clearTimeout(timer);\n        resolve(httpCall({ method, path: p, headers, body, deadline }));\n        return;\n      }\n      finish({ kind: 'error', sent: connected, timedOut, code: e.code });\n    });",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
