"""Correct variant of the independent Node executor: downstream requests share one keep-alive connection pool.

What it does differently: the unchanged executor opens a connection per request (`agent: false`). This variant
sends every downstream request through one shared `http.Agent({ keepAlive: true })`, so a connection left idle by
one request (of any call, of any caller) is reused by the next. Headers, bodies and deadlines are per request as
before; a request whose answer broke off, or whose deadline passed, destroys its socket as before.

Where it ships: everywhere in Node: Node 19+ makes the global agent keep connections alive, and undici/fetch pools
connections by origin; Python's requests.Session and httpx.Client do the same.

Docs relied on: docs/protocol.md, the answer table: "connection refused (fault `connection_refused` closes the
services' port for a step, and closes pooled connections 100 ms before its calls) | not sent |
`dependency_unavailable` (`reason: not_sent`)": the contract expects executors to pool connections. Nothing in
docs/protocol.md asks for a fresh connection per request; "Every request carries" its own identity headers,
which a pool does not share.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_node  # noqa: E402

exec_node(
    __file__, "executor.mjs",
    ("""      method, path: fullPath, headers: h, agent: false,""",
     """const INSTANCE = crypto.randomBytes(8).toString('hex');"""),
    ("""      method, path: fullPath, headers: h, agent: base.protocol === 'https:' ? false : POOL,""",
     """const INSTANCE = crypto.randomBytes(8).toString('hex');
const POOL = new http.Agent({ keepAlive: true, maxSockets: 64 });"""),
)
