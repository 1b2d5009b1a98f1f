"""Bug: add_stock validates its arguments by hand (the SDK's validation turned off to give friendlier
messages) and answers a refusal as an ordinary result, without isError, so a client takes it for a success."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402


def refusal(arguments: dict) -> str | None:
    extra = set(arguments) - {"sku", "qty"}
    if extra:
        return f"unknown argument {sorted(extra)[0]}"
    sku, qty = arguments.get("sku"), arguments.get("qty")
    if not isinstance(sku, str) or not control.re.fullmatch(r"SKU-[0-9]{4}", sku):
        return "sku must look like SKU-0001"
    if "qty" in arguments and (not isinstance(qty, int) or isinstance(qty, bool)):
        return "qty must be a whole number"
    if "qty" in arguments and not 1 <= qty <= 1000:
        return "qty must be between 1 and 1000"
    return None


@server.call_tool(validate_input=False)
async def call_tool(name: str, arguments: dict):
    if name in ("get_item", "add_stock"):
        if name == "add_stock" and "qty" not in arguments:
            return types.CallToolResult(content=[types.TextContent(type="text", text="Error: qty is required")])
        problem = refusal(arguments)
        if problem:
            # THE BUG: a refusal without isError: true
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"Error: {problem}")])
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    control.asyncio.run(control.main())
