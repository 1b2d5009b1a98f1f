"""A notes-folder browser, the most common kind of MCP server: FastMCP (mcp 1.30.0), read-only tools over one
root folder given on the command line, errors left to the SDK (an exception becomes an isError result).
    python3 py1_fastmcp_files.py --root /srv/notes
"""

import sys
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

ROOT = Path(sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else Path.home() / "notes").resolve()
mcp = FastMCP("notes-folder")


def inside(path: str) -> Path:
    target = (ROOT / path).resolve()
    if ROOT not in target.parents and target != ROOT:
        raise PermissionError(f"{path} is outside the notes folder")
    return target


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(path: str) -> str:
    """Read a note (a path relative to the notes folder)."""
    return inside(path).read_text(encoding="utf-8")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_notes(folder: str = ".") -> list[str]:
    """List the notes in a folder of the notes folder."""
    return sorted(p.name for p in inside(folder).iterdir())


if __name__ == "__main__":
    mcp.run()
