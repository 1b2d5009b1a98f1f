"""The Python SDK example server (examples/mcp-python/server.py) over Streamable HTTP with one bug: the bearer
token may be signed with any HMAC algorithm, not HS256 alone, so a token whose header says HS512 is accepted.

Where it ships: `algorithms=["HS256", "HS384", "HS512"]` ("every HMAC we might use") in PyJWT, or `jwtVerify`
without `algorithms` in jose, which then takes whatever symmetric algorithm the token names. docs/mcp.md: "Servers
MUST accept HS256 only (refusing `none` and every other `alg`)". Written blind in round 17
(examples/buggy/BLIND17.md, `ts_jwt_algorithms_unpinned`, on the TypeScript SDK); `harness/tests/conform_mcp_http.rs`
proves that `conform --mcp-http` catches it, since the fourth of a run's invalid identities is the run's key with
HS512.
"""

from _example import server, verify_tokens_with

# THE BUG: three algorithms allowed where the contract allows one.
verify_tokens_with(lambda verifier: {"algorithms": ["HS256", "HS384", "HS512"], "audience": verifier.audience,
                                     "issuer": server.ISSUER, "options": {"require": ["exp", "iat", "sub"]}})

if __name__ == "__main__":
    server.main()
