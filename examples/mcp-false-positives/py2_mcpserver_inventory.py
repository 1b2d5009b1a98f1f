"""A warehouse inventory server written the way the Python SDK 2.x docs teach (MCPServer, type hints, Context).

SDK defaults throughout (mcp 2.3.0, target/mcp-python-venv). Tools log to the client through the Context and to
stderr through `logging`, report progress, and one raises.
    python3 py2_mcpserver_inventory.py
"""

import logging
import sys
from enum import Enum
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

logging.basicConfig(stream=sys.stderr, level=logging.DEBUG)
log = logging.getLogger("inventory")

mcp = MCPServer("inventory", instructions="Stock levels of the Lyon warehouse — entrepôt de Lyon.")

STOCK = {"SKU-001": 12, "SKU-002": 0, "SKU-003": 250}


class Unit(str, Enum):
    piece = "piece"
    box = "box"
    pallet = "pallet"


class Address(BaseModel):
    street: str
    city: str
    postcode: Annotated[str, Field(pattern=r"^\d{5}$")]
    country: str = "FR"


class StockLevel(BaseModel):
    sku: str
    quantity: int
    unit: Unit
    in_stock: bool


class Shipment(BaseModel):
    shipment_id: str
    items: list[str]
    weight_kg: float
    address: Address


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
async def get_stock(sku: str, unit: Unit = Unit.piece, ctx: Context | None = None) -> StockLevel:
    """Current stock of one SKU (e.g. SKU-001)."""
    if ctx is not None:
        await ctx.info(f"looking up {sku}")
    log.debug("get_stock %s %s", sku, unit)
    if sku not in STOCK:
        raise ValueError(f"unknown SKU {sku!r}")
    return StockLevel(sku=sku, quantity=STOCK[sku], unit=unit, in_stock=STOCK[sku] > 0)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def list_skus(ctx: Context) -> list[str]:
    """Every SKU the warehouse knows."""
    await ctx.report_progress(1, 1)
    return sorted(STOCK)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def estimate_shipping(
    weight_kg: Annotated[float, Field(gt=0, le=1000)],
    destination: Address,
    express: bool = False,
    quantity: Annotated[int, Field(ge=1, le=99)] = 1,
) -> float:
    """Shipping price in euros (prix de livraison)."""
    return round(4.9 + weight_kg * 0.8 * quantity + (15 if express else 0), 2)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def warehouse_health() -> dict:
    """Is the warehouse system up?"""
    raise RuntimeError("inventory database unreachable")


@mcp.tool()
def ship(items: list[str], address: Address, weight_kg: float, note: str | None = None) -> Shipment:
    """Create a shipment."""
    return Shipment(shipment_id="SH-1", items=items, weight_kg=weight_kg, address=address)


@mcp.resource("inventory://skus", mime_type="application/json")
def skus_resource() -> list[str]:
    """The SKU list."""
    return sorted(STOCK)


@mcp.prompt()
def restock_plan(sku: str) -> str:
    """Plan a restock."""
    return f"Write a restock plan for {sku}."


if __name__ == "__main__":
    mcp.run()
