#!/usr/bin/env python3
"""Correct, written another way: `task_cancel` sends `DELETE /exports/{task_id}` and then reads the job once more
(`GET /exports/{task_id}`, inside the same deadline), answering the status that read reports: the freshest the
service has. If the read fails, it answers what the DELETE reported.

Where it ships: cancel endpoints that answer 202 with no reliable status, followed by a confirming read.

Permitted by docs/conformance-app.md (Tasks): "`task_cancel` sends `DELETE /exports/{task_id}` and answers the
job's status as the service reports it (`working` while the job has yet to notice)" and "an executor never
reports `cancelled` (or `completed`) before the job got there": the confirming read is the service's report.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if tool.entry.get("task") != "cancel" or state != "SUCCEEDED" or ctx.remaining_ms() <= 0:
        return state, result
    try:
        status, _, body = self.downstream.send("GET /exports/{task_id}", arguments, ctx)
        read = cp.json.loads(body) if status == 200 else None
    except (cp.NotSent, cp.Lost, cp.TimedOut, ValueError):
        read = None
    if isinstance(read, dict) and read.get("status") in ("working", "completed", "cancelled", "failed"):
        result = dict(result, status=read["status"])
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
