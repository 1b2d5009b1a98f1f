"""Bug: a tool name the server does not have is answered with an ordinary result ("no such tool"), neither a
JSON-RPC error nor isError, so the model reads it as the tool's output."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name not in {tool.name for tool in control.TOOLS}:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"no such tool: {name}")])  # THE BUG
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
