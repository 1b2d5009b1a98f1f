"""A read-only document store written with the Python SDK 1.x low-level Server, as its README shows:
hand-written JSON Schemas (strict, additionalProperties false), an outputSchema, resources and prompts.

SDK defaults (mcp 1.30.0, target/python-venv): the low-level server validates arguments against inputSchema
and structured results against outputSchema itself.
    python3 py1_lowlevel_files.py
"""

import asyncio
import logging
import sys

import mcp.server.stdio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

logging.basicConfig(stream=sys.stderr, level=logging.INFO)
log = logging.getLogger("docs")

server = Server("docs-store")

DOCS = {
    "readme": {"title": "README", "text": "Bienvenue ! Welcome.", "lines": 2},
    "changelog": {"title": "CHANGELOG", "text": "v1.0 — first release", "lines": 1},
}

TOOLS = [
    types.Tool(
        name="read_doc",
        title="Read a document",
        description="Read a document by name, optionally a range of lines. Lit un document.",
        inputSchema={
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": sorted(DOCS)},
                "start_line": {"type": "integer", "minimum": 1, "default": 1},
                "max_lines": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100},
                "format": {"type": "string", "enum": ["text", "markdown"], "default": "text"},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        outputSchema={
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "title": {"type": "string"},
                "text": {"type": "string"},
                "lines": {"type": "integer"},
            },
            "required": ["name", "title", "text", "lines"],
        },
        annotations=types.ToolAnnotations(readOnlyHint=True),
    ),
    types.Tool(
        name="search_docs",
        description="Full-text search over the documents.",
        inputSchema={
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2, "maxLength": 200},
                "filters": {
                    "type": "object",
                    "properties": {
                        "titles": {"type": "array", "items": {"type": "string"}},
                        "min_lines": {"type": "integer", "minimum": 0},
                    },
                    "additionalProperties": False,
                },
                "score_threshold": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["query", "score_threshold"],
            "additionalProperties": False,
        },
        annotations=types.ToolAnnotations(readOnlyHint=True),
    ),
    types.Tool(
        name="ping_backend",
        description="Check the storage backend (no arguments).",
        inputSchema={"type": "object", "properties": {}, "additionalProperties": False},
        annotations=types.ToolAnnotations(readOnlyHint=True),
    ),
]


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent] | dict:
    log.info("call %s %s", name, arguments)
    if name == "read_doc":
        doc = DOCS[arguments["name"]]
        return {"name": arguments["name"], **doc}
    if name == "search_docs":
        hits = [key for key, doc in DOCS.items() if arguments["query"].lower() in doc["text"].lower()]
        return [types.TextContent(type="text", text=", ".join(hits) or "no match")]
    if name == "ping_backend":
        raise ConnectionError("storage backend did not answer")
    raise ValueError(f"Unknown tool: {name}")


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    return [types.Resource(uri=f"docs://{key}", name=key, mimeType="text/plain") for key in DOCS]


@server.read_resource()
async def read_resource(uri) -> str:
    return DOCS[str(uri).removeprefix("docs://")]["text"]


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [types.Prompt(name="summarize_doc", arguments=[types.PromptArgument(name="name", required=True)])]


async def main():
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream,
            write_stream,
            InitializationOptions(
                server_name="docs-store",
                server_version="0.3.0",
                capabilities=server.get_capabilities(
                    notification_options=NotificationOptions(), experimental_capabilities={}
                ),
            ),
        )


if __name__ == "__main__":
    asyncio.run(main())
