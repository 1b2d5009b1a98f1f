"""Bug: when a poll's read of the job fails (5xx, no answer, a redirect), the executor answers the last answer it
saw for that handle (ok, usually `working`) instead of dependency_unavailable: a stale-while-error cache.

Ships in: HTTP caches and SDK wrappers that "serve stale on error" (RFC 5861 stale-if-error, resilience libraries'
fallback-to-cache).
Breaks: docs/conformance-app.md, "5xx | not applied (the mock promises it) | `dependency_unavailable`, retryable"
and the reads' row "`dependency_unavailable` with `details.reason = "no_answer"`"; docs/errors.md
dependency_unavailable.
"""

import threading

from correct import cp, serve

_last, _lock = {}, threading.Lock()
_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if tool.entry.get("task") == "poll":
        key = (ctx.auth["tenant_id"], arguments.get("task_id"))
        with _lock:
            if not isinstance(result, cp.Refusal):
                _last[key] = result
            elif result.code == "dependency_unavailable" and key in _last:
                return "SUCCEEDED", _last[key]
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
