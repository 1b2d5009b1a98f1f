"""Bug: get_item declares an outputSchema but answers with a formatted text block only (a CallToolResult the
author builds by hand "for a nicer display"), so there is no structuredContent."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "get_item":
        found = control.item(arguments["sku"])
        text = f"{found['name']} ({found['sku']}): {found['qty']} in stock"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])  # THE BUG
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
