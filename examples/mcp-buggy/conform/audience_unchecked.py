"""The Python SDK example server (examples/mcp-python/server.py) over Streamable HTTP with one bug: the bearer
token's audience is not verified, so a token the same issuer signed for another MCP server is accepted here.

Where it ships: PyJWT refuses a token that carries `aud` unless `decode` is told the expected audience, and the
usual way out in servers behind one issuer is `options={"verify_aud": False}`. docs/mcp.md: "What the server must
verify ... the signature with HS256, `iss`, `aud`, `exp`". Written blind in round 14 (examples/buggy/BLIND14.md,
`py_jwt_audience_unchecked`); `harness/tests/conform_mcp_http.rs` proves that `conform --mcp-http` catches it,
since a run's invalid identities take turns between a bad signature and a token for another audience.
"""

from _example import server, verify_tokens_with

# THE BUG: no audience= and the audience check switched off.
verify_tokens_with(lambda verifier: {"algorithms": ["HS256"], "issuer": server.ISSUER,
                                     "options": {"require": ["exp", "iat", "sub"], "verify_aud": False}})

if __name__ == "__main__":
    server.main()
