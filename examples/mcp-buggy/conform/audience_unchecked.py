"""The Python SDK example server (examples/mcp-python/server.py) over Streamable HTTP with one bug: the bearer
token's audience is not verified, so a token the same issuer signed for another MCP server is accepted here.

Where it ships: PyJWT refuses a token that carries `aud` unless `decode` is told the expected audience, and the
usual way out in servers behind one issuer is `options={"verify_aud": False}`. docs/mcp.md: "What the server must
verify ... the signature with HS256, `iss`, `aud`, `exp`". Written blind in round 14 (examples/buggy/BLIND14.md,
`py_jwt_audience_unchecked`); `harness/tests/conform_mcp_http.rs` proves that `conform --mcp-http` catches it,
since a run's invalid identities take turns between a bad signature and a token for another audience.
"""

import jwt

from _example import server


async def verify_token(self, token):
    try:
        # THE BUG: no audience= and the audience check switched off.
        claims = jwt.decode(token, self.key, algorithms=["HS256"], issuer=server.ISSUER,
                            options={"require": ["exp", "iat", "sub"], "verify_aud": False})
    except jwt.InvalidTokenError as error:
        server.log.info("refused a bearer token: %s", error)
        return None
    return server.AccessToken(token=token, client_id=server.ISSUER, scopes=str(claims.get("scope", "")).split(),
                              expires_at=int(claims["exp"]), resource=self.audience, subject=claims["sub"],
                              claims=claims)


server.CallproofTokens.verify_token = verify_token

if __name__ == "__main__":
    server.main()
