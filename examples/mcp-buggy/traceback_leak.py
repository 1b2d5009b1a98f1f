"""Bug: every exception is caught and its full traceback returned as the isError text ("so the user can
debug"), which names the server's files and code."""

import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    try:
        return await control.call_tool(name, arguments)
    except Exception:
        text = traceback.format_exc()  # THE BUG
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


if __name__ == "__main__":
    control.asyncio.run(control.main())
