#!/usr/bin/env python3
"""Correct, written another way: a `task_cancel` whose DELETE is answered `working` (the job has yet to notice)
does not answer `working` at once: it reads the job (`GET /exports/{task_id}`) every 100 ms, while at least
300 ms of its own budget are left, and answers the first final status the service reports (`cancelled`, or
`completed` when the cancel came too late), or `working` if the job has not ended by then.

Where it ships: executors that turn a cooperative cancel into a synchronous one within the caller's budget, so
the agent does not have to poll.

Permitted by docs/conformance-app.md: "`task_cancel` sends `DELETE /exports/{task_id}` and answers the job's
status as the service reports it (`working` while the job has yet to notice) ... Only a poll tells what really
happened; an executor never reports `cancelled` (or `completed`) before the job got there." Every status this
variant answers is one the service reported, read after the job got there; the reads change nothing. The
answer is still validated against the output schema and recorded under the cancel's key like the example's.

Expected: passes every check under --profile all. A false-positive probe for task-status-truthful (it must
accept a final status from a cancel once the job really ended) and for checks that count a cancel's requests.
"""

import json
import time

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool
SPARE_MS = 300
FINAL = ("completed", "cancelled", "failed")


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if tool.entry.get("task") != "cancel" or not isinstance(result, dict) or result.get("status") != "working":
        return state, result
    while ctx.remaining_ms() > SPARE_MS + 100:
        time.sleep(0.1)
        try:
            status, _, body = self.downstream.send(tool.downstream["resource"], arguments, ctx)
        except (cp.NotSent, cp.Lost, cp.TimedOut):
            break
        if status != 200:
            break
        try:
            job = json.loads(body)
        except ValueError:
            break
        if isinstance(job, dict) and job.get("status") in FINAL:
            return state, cp.project(tool, dict(result, status=job["status"]))
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
