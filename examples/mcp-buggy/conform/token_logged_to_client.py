"""The Python SDK example server (examples/mcp-python/server.py) with one bug: over HTTP every call sends the
client a log message naming the bearer token it was authenticated with.

Where it ships: an "authenticated X with bearer ..." line written while debugging a token verifier, left in and
sent to the client through the SDK's logging. MCP's server/utilities/logging §Security: log messages MUST NOT
contain credentials; docs/checks.md `no-secret-leak` looks for the harness's own tokens in every answer and
notification. Written blind in round 16 (examples/buggy/BLIND16.md, `ts_token_logged_to_client`, there on the
TypeScript SDK example); `harness/tests/conform_mcp_http.rs` holds it to failing `no-secret-leak`.
"""

from mcp.server.auth.middleware.auth_context import get_access_token

from _example import before_each_call, server


async def log_token(tool, arguments, context):
    access = get_access_token()
    if access is not None:
        # THE BUG: the caller's credential goes to the client's log.
        await context.info(f"{tool.name}: authenticated with bearer {access.token}")


before_each_call(log_token)

if __name__ == "__main__":
    server.main()
