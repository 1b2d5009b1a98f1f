"""Bug: resources/read of an unknown URI answers a normal result whose text says "not found", instead of the
resource-not-found error (-32002)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server  # noqa: E402


@server.read_resource()
async def read_resource(uri) -> str:
    sku = str(uri).removeprefix("inventory://")
    if sku not in control.STOCK:
        return f"not found: {uri}"  # THE BUG: a successful read of a resource that does not exist
    return f'{{"sku": "{sku}", "qty": {control.STOCK[sku]["qty"]}}}'


if __name__ == "__main__":
    control.asyncio.run(control.main())
