"""The Python SDK example server (examples/mcp-python/server.py) with one bug: over HTTP the caller is taken from
`_meta["io.callproof/context"].auth` when the request carries one, and from the verified token only otherwise, so
any client can name itself, its scopes and its roles.

Where it ships: one handler shared by the stdio and HTTP transports, where stdio's trusted context is kept "as a
fallback" or "for tests". docs/mcp.md: over HTTP an `auth` in the context MUST be ignored; the caller is the
token's. Written blind in round 15 (examples/buggy/BLIND15.md, `py_meta_auth_over_http`);
`harness/tests/conform_mcp_http.rs` holds it to failing the auth scenarios, whose calls over HTTP carry a forged
`auth` with every scope, the role `support_admin` and an identity that never expires.
"""

import inspect

from _example import server

SOURCE = inspect.getsource(server.execute)
TRUSTED = "auth = auth_from_claims(claims)"
assert SOURCE.count(TRUSTED) == 1, "the example's execute changed: update this module"
# THE BUG: the context's auth, when present, wins over the token's claims.
_namespace = {}
exec(compile(SOURCE.replace(TRUSTED, 'auth = call.get("auth") or auth_from_claims(claims)'), server.__file__, "exec"),
     server.__dict__, _namespace)
server.execute = _namespace["execute"]

if __name__ == "__main__":
    server.main()
