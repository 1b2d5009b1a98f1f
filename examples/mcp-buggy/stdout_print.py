"""Bug: a print() left in the tool handler writes a debug line to stdout, between the JSON-RPC messages."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    print(f"DEBUG call_tool {name} {arguments}", flush=True)  # THE BUG: stdout is the protocol channel
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
