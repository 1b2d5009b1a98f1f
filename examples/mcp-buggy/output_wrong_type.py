"""Bug: get_item returns a CallToolResult itself (to attach _meta), which skips the SDK's output validation,
and its structuredContent carries qty as a string where the outputSchema says integer."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "get_item":
        found = control.item(arguments["sku"])
        found["qty"] = str(found["qty"])  # THE BUG: "120", not 120, and nothing validates it any more
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(found))],
            structuredContent=found,
            _meta={"inventory/source": "cache"},
        )
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
