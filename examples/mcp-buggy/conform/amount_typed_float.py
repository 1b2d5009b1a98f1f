"""The Python SDK example server (examples/mcp-python/server.py) with one bug: `refund_order`'s amount is typed
`float` ("money has cents"), so the SDK's validation lets 30.5 through and the refund is made.

Where it ships: a pydantic or zod schema written from the business's idea of money instead of the tool's
contract (`amount: float`, zod's `z.number()` without `.int()`); the catalog says `integer`, and docs/errors.md
makes a fraction for an integer a `schema_violation`. Written blind in round 17 (examples/buggy/BLIND17.md,
`ts_amount_not_int`, on the TypeScript SDK); `harness/tests/conform_mcp.rs` proves that `conform --mcp` catches it
on `decode/fraction_for_integer`, which the example passes on every check but the envelope of its refusal.
"""

from typing import Annotated

from pydantic import Field

from _example import server

server.mcp._tool_manager._tools.pop("refund_order")


@server.mcp.tool(annotations=server.ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                                     openWorldHint=True))
def refund_order(order_id: server.OrderId,
                 amount: Annotated[float | None, Field(ge=1, le=100_000_000)],  # THE BUG: float, not int
                 reason: Annotated[str, Field(min_length=1, max_length=200)],
                 ctx: server.Context) -> Annotated[server.CallToolResult, server.Envelope[server.Refund]]:
    """Refund part or all of an order (null amount: everything refundable). Financial."""
    return server.execute("refund_order", {"order_id": order_id, "amount": amount, "reason": reason}, ctx)


if __name__ == "__main__":
    server.main()
