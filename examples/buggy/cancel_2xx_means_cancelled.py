"""Buggy executor: a task cancel answered 2xx is reported as `cancelled` at once.

Behaviour: when `task_cancel`'s `DELETE /exports/{task_id}` comes back 2xx, the executor answers the job's
status as `cancelled` (and no result), whatever status the export service reported in the body (`working` while
the job has yet to notice the request, or `completed` when the cancel came too late).

Where it ships: cancel handlers that read "202 Accepted / 204 No Content" as "done" (`if r.ok: return
{"status": "cancelled"}`), common in job-queue and export wrappers.

Doc sentence it breaks: docs/conformance-app.md (Tasks), "`task_cancel` sends `DELETE /exports/{task_id}` and
answers the job's status as the service reports it (`working` while the job has yet to notice) ... an executor
never reports `cancelled` (or `completed`) before the job got there."
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    # BUG: the service accepted the cancel, so the job "is cancelled".
    if tool.entry.get("task") == "cancel" and state == "SUCCEEDED" and isinstance(result, dict):
        result = dict(result, status="cancelled", result=None) if "result" in result else dict(result,
                                                                                               status="cancelled")
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
