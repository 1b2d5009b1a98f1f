"""The Python SDK example server (examples/mcp-python/server.py) with one bug: at the debug level every call is
logged to the client with its arguments, so once a client asks for debug messages (`logging/setLevel`), an
x-sensitive email body reaches it in the log.

Where it ships: a "trace every call" debug line (`ctx.debug(f"{name} called with {arguments}")`) behind a level
the server keeps as the spec's logging/setLevel asks, off by default and so never seen in a quick test. MCP's
server/utilities/logging §Security: log messages MUST NOT contain credentials or secrets; docs/errors.md: an
x-sensitive value is never repeated. `conform --mcp` asks a 2025-11-25 server that declares logging for every
level right after the handshake; without that, nothing here is sent. `harness/tests/conform_mcp.rs` holds it
to failing `no-secret-leak`.
"""

import json

import mcp.types as types
from mcp.server.lowlevel.server import HandlerEntry

from _example import before_each_call, server

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
threshold = {"level": "warning"}


async def set_level(context, params):
    threshold["level"] = params.level
    return types.EmptyResult()


server.mcp._lowlevel_server._request_handlers["logging/setLevel"] = HandlerEntry(types.SetLevelRequestParams, set_level)


async def trace(tool, arguments, context):
    if LEVELS.index(threshold["level"]) == 0:
        # THE BUG: the call's arguments, x-sensitive ones included, go to the client's log.
        await context.debug(f"{tool.name} called with {json.dumps(arguments)}")


before_each_call(trace)

if __name__ == "__main__":
    server.main()
