"""Asks the user to confirm with ctx.elicit before acting, as the mcp 2.x docs show (MCPServer, mcp 2.3.0).
The client (callproof) declares no elicitation capability.
    python3 py2_mcpserver_elicit.py
"""
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

mcp = MCPServer("elicit-probe")

class Confirm(BaseModel):
    confirm: bool

class Archived(BaseModel):
    sku: str
    archived: bool

@mcp.tool()
async def archive_sku(sku: str, ctx: Context) -> Archived:
    """Archive a SKU after the user confirms."""
    answer = await ctx.elicit(f"Really archive {sku}?", Confirm)
    return Archived(sku=sku, archived=answer.action == "accept" and bool(answer.data and answer.data.confirm))

if __name__ == "__main__":
    mcp.run()
