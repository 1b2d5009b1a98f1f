"""Bug: a poll whose job ended `cancelled` or `failed` is answered as an error (business_rejected, reason
`task_cancelled` / `task_failed`) instead of `ok` with that status.

Ships in: job clients that raise on a terminal non-success state (Celery `AsyncResult.get(propagate=True)`, LRO
pollers' `result()`, `CancelledError`) wrapped by a tool adapter that turns every exception into a tool error.
Breaks: docs/conformance-app.md Tasks, "`task_status` answers `{task_id, status, result}`: `status` is `working`,
`completed`, `cancelled` or `failed`".
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if (tool.entry.get("task") == "poll" and isinstance(result, dict)
            and result.get("status") in ("cancelled", "failed")):
        return "FAILED_FINAL", cp.Refusal("business_rejected", "the task did not complete",
                                          reason="task_" + result["status"])
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
