"""Bug: the executor mints its own task handle (`exp_<uuid hex>`) for a submission and maps it, in memory, to the
downstream's `task_id`, translating polls and cancels, instead of passing the downstream's handle through.

Ships in: MCP task servers that create their own `taskId` for a CreateTaskResult and keep a map to the backend
job's id.
Breaks: docs/conformance-app.md Tasks, "**The handle is the downstream's `task_id`**, passed through unchanged".
"""

import threading
import uuid

from correct import cp, serve

_ours_to_theirs, _theirs_to_ours, _lock = {}, {}, threading.Lock()
_run_decoded = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    task = tool.entry.get("task")
    if task in ("poll", "cancel"):
        with _lock:
            theirs = _ours_to_theirs.get(arguments.get("task_id"))
        if theirs is not None:
            arguments = dict(arguments, task_id=theirs)
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    result = envelope.get("result")
    if task and envelope.get("ok") and isinstance(result, dict) and isinstance(result.get("task_id"), str):
        with _lock:
            ours = _theirs_to_ours.get(result["task_id"])
            if ours is None and task == "submit":
                ours = "exp_" + uuid.uuid4().hex
                _theirs_to_ours[result["task_id"]], _ours_to_theirs[ours] = ours, result["task_id"]
        if ours is not None:
            envelope = dict(envelope, result=dict(result, task_id=ours))
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
