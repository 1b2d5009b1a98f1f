"""Bug: tools/list is paginated two tools a page, and the cursor is the index of the last tool sent instead
of the next one, so the last tool of a page comes again first on the next page."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server, types  # noqa: E402

PAGE = 2


@server.list_tools()
async def list_tools(request: types.ListToolsRequest) -> types.ListToolsResult:
    start = int(request.params.cursor) if request.params and request.params.cursor else 0
    page = control.TOOLS[start : start + PAGE]
    last = start + len(page) - 1
    more = start + PAGE < len(control.TOOLS)
    return types.ListToolsResult(tools=page, nextCursor=str(last) if more else None)  # THE BUG: last, not last + 1


if __name__ == "__main__":
    control.asyncio.run(control.main())
