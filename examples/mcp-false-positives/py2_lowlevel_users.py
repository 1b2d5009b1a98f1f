"""A user directory written with the Python SDK 2.x low-level Server (constructor handlers), its tools copied
from the 2026-07-28 specification's own examples (server/tools: "Example tool with array output schema",
"Tool with no parameters"). Arguments are validated with jsonschema against each tool's inputSchema and a
failure is a tool execution error (isError), as the spec's Error Handling section says.

mcp 2.3.0 (target/mcp-python-venv), which serves 2025-11-25 and 2026-07-28 on one connection.
    python3 py2_lowlevel_users.py
"""

import asyncio
import json
import logging
import sys
from datetime import datetime, timezone

import jsonschema
import mcp.server.stdio
import mcp_types as types
from mcp.server.lowlevel import Server

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger("users")

USERS = [
    {"id": "1", "name": "Alice", "email": "alice@example.com"},
    {"id": "2", "name": "Bob", "email": "bob@example.com"},
]

TOOLS = [
    types.Tool(
        name="list_users",
        title="User List",
        description="Returns a list of all users",
        input_schema={"type": "object", "properties": {}},
        output_schema={
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}},
                "required": ["id", "name", "email"],
            },
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="get_current_time",
        description="Returns the current server time",
        input_schema={"type": "object", "additionalProperties": False},
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="find_user",
        description="Find a user by e-mail address",
        input_schema={
            "type": "object",
            "properties": {"email": {"type": "string", "maxLength": 254}},
            "required": ["email"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}},
            "required": ["id", "name", "email"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
]
BY_NAME = {tool.name: tool for tool in TOOLS}


def text(value) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value if isinstance(value, str) else json.dumps(value))]


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    tool = BY_NAME.get(params.name)
    if tool is None:
        return types.CallToolResult(content=text(f"Unknown tool: {params.name}"), is_error=True)
    arguments = params.arguments or {}
    try:
        jsonschema.validate(arguments, tool.input_schema)
    except jsonschema.ValidationError as error:
        return types.CallToolResult(content=text(f"Invalid arguments: {error.message}"), is_error=True)
    log.info("call %s %s", params.name, arguments)
    if params.name == "list_users":
        summary = "Found 2 users: Alice (alice@example.com) and Bob (bob@example.com)."
        return types.CallToolResult(content=text(summary), structured_content=USERS)
    if params.name == "get_current_time":
        return types.CallToolResult(content=text(datetime.now(timezone.utc).isoformat()))
    match = next((user for user in USERS if user["email"] == arguments["email"]), None)
    if match is None:
        return types.CallToolResult(content=text(f"No user with e-mail {arguments['email']}"), is_error=True)
    return types.CallToolResult(content=text(match), structured_content=match)


server = Server("users", version="2.0.1", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
