"""A currency converter as the Python SDK 1.x README's first example would grow it: FastMCP, floats, enums.

SDK defaults (mcp 1.30.0, target/python-venv).
    python3 py1_fastmcp_currency.py
"""

import sys
from typing import Literal

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("currency")

RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.3}
Currency = Literal["EUR", "USD", "GBP", "JPY"]


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def convert(amount: float, from_currency: Currency, to_currency: Currency) -> float:
    """Convert an amount between currencies (taux fixes)."""
    print(f"convert {amount} {from_currency}->{to_currency}", file=sys.stderr)
    return round(amount / RATES[from_currency] * RATES[to_currency], 4)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def rates() -> dict[str, float]:
    """Every known rate against the euro."""
    return RATES


if __name__ == "__main__":
    mcp.run()
