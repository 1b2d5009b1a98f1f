"""Bug: a call that gives a progressToken starts a progress ticker in a background task that nobody stops, so
notifications/progress for the token keep coming after the call was answered.

Where it ships: "report progress every 50 ms" written as `asyncio.create_task(ticker())` beside the work, with
no `cancel()` when the work returns (or a `finally` that forgets it). utilities/progress: progress notifications
MUST only reference tokens provided in an active request, associated with an in-progress operation. Blind
rounds 14 and 15 missed such a ticker because no request of the profile carried a token; the profile now gives
one on each tool's first valid call, and `mcp-progress-token` fails a notification read after its request's
answer (over stdio, where the order is the server's).
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402
from control import server  # noqa: E402


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    ctx = server.request_context
    token = ctx.meta.progressToken if ctx.meta else None
    if token is not None:

        async def tick():
            for step in range(1, 21):
                await ctx.session.send_progress_notification(token, step, total=20.0, message=f"{name}: step {step}")
                await asyncio.sleep(0.05)

        asyncio.get_running_loop().create_task(tick())  # THE BUG: never awaited nor cancelled when the call returns
    return await control.call_tool(name, arguments)


if __name__ == "__main__":
    asyncio.run(control.main())
