"""A "run this Python snippet" tool, a common MCP server for data questions: FastMCP (mcp 1.30.0); the snippet
runs in a subprocess with a timeout, and a snippet that fails is a tool error carrying its own traceback, so the
model can fix its code (tools §Error Handling: tool execution errors are "actionable feedback").
    python3 py1_fastmcp_runner.py
"""

import subprocess
import sys

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

mcp = FastMCP("python-runner")


@mcp.tool()
def run_python(code: str, timeout_s: int = 10) -> str:
    """Run a Python snippet and return what it printed."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-"], input=code, capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"the snippet ran longer than {timeout_s} s")
    if done.returncode != 0:
        raise ToolError(done.stderr.strip() or f"exit code {done.returncode}")
    return done.stdout


if __name__ == "__main__":
    mcp.run()
