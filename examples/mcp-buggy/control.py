"""The correct control: a small inventory server on the Python SDK 1.x low-level Server (mcp 1.30.0).

Every buggy Python server of this folder imports this module and replaces one handler (or one function),
so each differs from this control by exactly its bug. SDK defaults: input validated against inputSchema,
structured results against outputSchema, an exception turned into an isError result.
    python3 control.py
"""

import asyncio
import re
import logging
import sys

import mcp.server.stdio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import McpError

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger("inventory")

server = Server("inventory")

STOCK = {"SKU-0001": {"name": "hex bolt M6", "qty": 120}, "SKU-0002": {"name": "washer M6", "qty": 40}}
SKU = {"type": "string", "pattern": "^SKU-[0-9]{4}$", "examples": ["SKU-0001"]}
ITEM = {
    "type": "object",
    "properties": {"sku": {"type": "string"}, "name": {"type": "string"}, "qty": {"type": "integer"}},
    "required": ["sku", "name", "qty"],
    "additionalProperties": False,
}

TOOLS = [
    types.Tool(
        name="get_item",
        description="Look up one item of the inventory by SKU.",
        inputSchema={"type": "object", "properties": {"sku": SKU}, "required": ["sku"], "additionalProperties": False},
        outputSchema=ITEM,
        annotations=types.ToolAnnotations(readOnlyHint=True),
    ),
    types.Tool(
        name="add_stock",
        description="Add received units of an item to the stock.",
        inputSchema={
            "type": "object",
            "properties": {"sku": SKU, "qty": {"type": "integer", "minimum": 1, "maximum": 1000}},
            "required": ["sku", "qty"],
            "additionalProperties": False,
        },
        outputSchema=ITEM,
        annotations=types.ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False),
    ),
    types.Tool(
        name="sync_warehouse",
        description="Pull the stock levels from the warehouse database.",
        inputSchema={"type": "object", "properties": {}, "additionalProperties": False},
        annotations=types.ToolAnnotations(readOnlyHint=False),
    ),
]


def item(sku: str) -> dict:
    if sku not in STOCK:
        raise ValueError(f"no item {sku}")
    return {"sku": sku, **STOCK[sku]}


def sync_warehouse() -> dict:
    # The warehouse database is not reachable from here: the tool fails as a tool execution error.
    raise ConnectionError("the warehouse database did not answer")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def handle_call(name: str, arguments: dict) -> dict:
    """Reports progress while the call runs when its request gave a token, then does the work."""
    meta = server.request_context.meta
    if meta and meta.progressToken is not None:
        await server.request_context.session.send_progress_notification(meta.progressToken, 0.5, total=1.0, message=f"{name} started")
    return await call_tool(name, arguments)


async def call_tool(name: str, arguments: dict) -> dict:
    log.info("call %s", name)
    if name == "get_item":
        return item(arguments["sku"])
    if name == "add_stock":
        found = item(arguments["sku"])
        STOCK[found["sku"]]["qty"] += arguments["qty"]
        return item(found["sku"])
    if name == "sync_warehouse":
        return sync_warehouse()
    raise ValueError(f"Unknown tool: {name}")


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    return [types.Resource(uri=f"inventory://{sku}", name=sku, mimeType="application/json") for sku in STOCK]


@server.read_resource()
async def read_resource(uri) -> str:
    sku = str(uri).removeprefix("inventory://")
    if sku not in STOCK:
        raise McpError(types.ErrorData(code=-32002, message="Resource not found", data={"uri": str(uri)}))
    return f'{{"sku": "{sku}", "qty": {STOCK[sku]["qty"]}}}'


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [types.Prompt(name="restock_plan", arguments=[types.PromptArgument(name="sku", required=True)])]


@server.get_prompt()
async def get_prompt(name: str, arguments: dict | None) -> types.GetPromptResult:
    if name != "restock_plan":
        raise McpError(types.ErrorData(code=-32602, message=f"Unknown prompt: {name}"))
    if not arguments or "sku" not in arguments:
        raise McpError(types.ErrorData(code=-32602, message="Missing required argument: sku"))
    text = f"Plan a restock of {arguments['sku']}."
    return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])


async def main():
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream,
            write_stream,
            InitializationOptions(
                server_name="inventory",
                server_version="1.4.0",
                capabilities=server.get_capabilities(notification_options=NotificationOptions(), experimental_capabilities={}),
            ),
        )


if __name__ == "__main__":
    asyncio.run(main())
