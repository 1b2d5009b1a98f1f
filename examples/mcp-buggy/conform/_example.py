"""Loads the conformance app's Python SDK example (examples/mcp-python/server.py) as a module, not as __main__,
for the buggy servers of this folder: each imports `server` from here, replaces one piece of it, and calls
`server.main()`, so everything but the one change is the example as it ships."""

import importlib.util
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "mcp-python" / "server.py"
_spec = importlib.util.spec_from_file_location("callproof_mcp_server", SERVER)
server = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = server
_spec.loader.exec_module(server)


def before_each_call(hook):
    """Makes every tool of the example run `await hook(tool, arguments, context)` before its call: the place where
    a buggy server of this folder logs something to the client."""
    for tool in server.mcp._tool_manager.list_tools():
        run = tool.run

        async def hooked(arguments, context, convert_result=False, tool=tool, run=run):
            await hook(tool, arguments, context)
            return await run(arguments, context, convert_result)

        object.__setattr__(tool, "run", hooked)
