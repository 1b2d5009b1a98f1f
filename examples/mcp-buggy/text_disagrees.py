"""Bug: the text block is rendered from a cached copy of the item taken at start-up, so after add_stock the
text says another quantity than structuredContent (which is read fresh). Same for get_item after a write."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402

CACHE = {sku: {"sku": sku, **dict(row)} for sku, row in control.STOCK.items()}


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name in ("get_item", "add_stock"):
        fresh = await control.call_tool(name, arguments)
        shown = CACHE.get(fresh["sku"], fresh)  # THE BUG: the text comes from the stale cache
        return ([types.TextContent(type="text", text=json.dumps(shown))], fresh)
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
