"""Bug: every tool call reports progress, using the request id as the progress token when the request carried
no progressToken (so the client receives notifications for a token it never gave)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    ctx = server.request_context
    meta = ctx.meta
    token = meta.progressToken if meta and meta.progressToken is not None else ctx.request_id  # THE BUG
    await ctx.session.send_progress_notification(token, 0.5, total=1.0, message=f"{name} started")
    result = await control.call_tool(name, arguments)
    await ctx.session.send_progress_notification(token, 1.0, total=1.0, message=f"{name} done")
    return result


if __name__ == "__main__":
    control.asyncio.run(control.main())
