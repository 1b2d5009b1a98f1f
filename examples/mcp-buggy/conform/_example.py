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
