"""The Python SDK example server (examples/mcp-python/server.py) over Streamable HTTP with one bug: the bearer
token's issuer is not verified, so a token another issuer signed with a key this server also trusts is accepted.

Where it ships: PyJWT checks `iss` only when `decode` is given `issuer=`, and the common call passes the key, the
algorithms and the audience and stops there. docs/mcp.md: "What the server must verify ... the signature with
HS256, `iss`, `aud`, `exp`". Written blind in round 17 (examples/buggy/BLIND17.md, `py_issuer_unchecked`);
`harness/tests/conform_mcp_http.rs` proves that `conform --mcp-http` catches it, since the third of a run's
invalid identities is the run's key from another issuer.
"""

from _example import server, verify_tokens_with

# THE BUG: no issuer=, so `iss` is never compared.
verify_tokens_with(lambda verifier: {"algorithms": ["HS256"], "audience": verifier.audience,
                                     "options": {"require": ["exp", "iat", "sub"]}})

if __name__ == "__main__":
    server.main()
