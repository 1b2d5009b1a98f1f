"""The Python SDK example server (examples/mcp-python/server.py) with one bug: every refused call is logged to the
client as a `notifications/message`, with the arguments it was given, so an x-sensitive email body a refusal must
not repeat reaches the client in the log instead of in the answer.

Where it ships: "log the failure with its inputs" handlers (`ctx.error(f"... {arguments}")`) added for debugging,
forwarded to the client by the SDK's logging. MCP's server/utilities/logging §Security: log messages MUST NOT
contain credentials or secrets; docs/errors.md: a refusal never repeats an x-sensitive value. Written blind in
round 14 (examples/buggy/BLIND14.md, `ts_refusal_logged_to_client`, there on the TypeScript SDK example);
`harness/tests/conform_mcp.rs` holds it to failing `no-secret-leak`.
"""

import json

from _example import server


async def log_refusal(context, name, arguments):
    # THE BUG: the refused call's arguments go to the client's log.
    await context.error(f"{name} refused its call: {json.dumps(arguments)}")


def logged_when_refused(tool):
    run = tool.run

    async def logging_run(arguments, context, convert_result=False):
        try:
            result = await run(arguments, context, convert_result)
        except Exception:
            await log_refusal(context, tool.name, arguments)
            raise
        if getattr(result, "is_error", False):
            await log_refusal(context, tool.name, arguments)
        return result

    object.__setattr__(tool, "run", logging_run)


for listed in server.mcp._tool_manager.list_tools():
    logged_when_refused(listed)

if __name__ == "__main__":
    server.main()
