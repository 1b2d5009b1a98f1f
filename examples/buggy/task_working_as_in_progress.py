"""Bug: a poll that finds the job still `working` answers `operation_in_progress` (retryable, resolution `poll`,
retry_after_ms 500) instead of `ok` with status `working`.

Ships in: agent frameworks and MCP servers that tell the model "still running, try again later" as a retryable
error rather than as a result.
Breaks: docs/conformance-app.md Tasks, "Polling is a read. `task_status` answers `{task_id, status, result}`:
`status` is `working`, ...".
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if tool.entry.get("task") == "poll" and isinstance(result, dict) and result.get("status") == "working":
        return "FAILED_RETRYABLE", cp.in_progress(500)
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
