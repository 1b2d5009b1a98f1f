"""The Python SDK example server (examples/mcp-python/server.py) with one bug: over HTTP each MCP session gets a
pipeline, and so an idempotency store, of its own, so a retry that comes on a new session finds no record of
its operation and executes it again.

Where it ships: state built in the per-session server factory (the TypeScript SDK's examples create a server per
session), or a store keyed by the transport's session id "so sessions never share state". errors.md: records and
leases belong to the business operation, not to a process or a connection; `conform --mcp-http` opens a session
per attempt, as a client that reconnects before it retries. Written blind in round 16 (examples/buggy/BLIND16.md,
`ts_store_per_session`, there on the TypeScript SDK example); `harness/tests/conform_mcp_http.rs` holds it to
failing `single-effect`.
"""

import inspect
import textwrap

from _example import server

_per_session = {}


def executor_for_session(session, downstream_url):
    # THE BUG: the store is the session's, not the process's.
    key = (id(session), downstream_url)
    if key not in _per_session:
        _per_session[key] = server.app.Executor({"catalog": server.CATALOG, "downstream_url": downstream_url})
    return _per_session[key]


source = inspect.getsource(server.execute)
old = 'executor = executor_for(downstream or "http://127.0.0.1:9")'
assert source.count(old) == 1, "examples/mcp-python/server.py changed: update this module"
source = source.replace(old, 'executor = executor_for_session(ctx.request_context.session, downstream or "http://127.0.0.1:9")')
server.executor_for_session = executor_for_session
namespace = {}
exec(compile(textwrap.dedent(source), server.__file__, "exec"), server.__dict__, namespace)
server.execute = namespace["execute"]

if __name__ == "__main__":
    server.main()
