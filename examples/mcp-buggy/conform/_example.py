"""Loads the conformance app's Python SDK example (examples/mcp-python/server.py) as a module, not as __main__,
for the buggy servers of this folder: each imports `server` from here, replaces one piece of it, and calls
`server.main()`, so everything but the one change is the example as it ships."""

import importlib.util
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "mcp-python" / "server.py"
_spec = importlib.util.spec_from_file_location("callproof_mcp_server", SERVER)
server = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = server
_spec.loader.exec_module(server)


def before_each_call(hook):
    """Makes every tool of the example run `await hook(tool, arguments, context)` before its call: the place where
    a buggy server of this folder logs something to the client."""
    for tool in server.mcp._tool_manager.list_tools():
        run = tool.run

        async def hooked(arguments, context, convert_result=False, tool=tool, run=run):
            await hook(tool, arguments, context)
            return await run(arguments, context, convert_result)

        object.__setattr__(tool, "run", hooked)


def verify_tokens_with(decode_arguments):
    """Makes the example check each bearer token with PyJWT's `jwt.decode(token, key, **decode_arguments(verifier))`
    instead of its own arguments: the one place a buggy server of this folder gets the check wrong. A token that
    passes becomes the example's access token; one that fails is logged and refused, as the example does."""
    import jwt

    async def verify_token(self, token):
        try:
            claims = jwt.decode(token, self.key, **decode_arguments(self))
        except jwt.InvalidTokenError as error:
            server.log.info("refused a bearer token: %s", error)
            return None
        return server.AccessToken(token=token, client_id=server.ISSUER, scopes=str(claims.get("scope", "")).split(),
                                  expires_at=int(claims["exp"]), resource=self.audience, subject=claims["sub"],
                                  claims=claims)

    server.CallproofTokens.verify_token = verify_token
