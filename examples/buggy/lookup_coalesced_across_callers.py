"""Buggy executor: resource lookups in flight at once are coalesced across callers (singleflight).

Changed place: `Executor.lookup_resource` (examples/python/callproof_executor.py), wrapped. A lookup of a path
(`GET /orders/ord_1`) while another call's lookup of the same path is in flight waits for that one and reuses its
answer (or its refusal), so the only request sent carries the first caller's X-Tenant-Id, X-Subject-Id and
X-Request-Id and the first call's X-Deadline-Ms; the second call sends nothing of its own.
Where teams ship it: singleflight / request-coalescing layers put in front of a system of record to absorb bursts
("same URL, same answer"), keyed by URL and not by caller.
"""

import threading

from correct import cp, serve

Refusal, expand = cp.Refusal, cp.expand
_original_lookup = cp.Executor.lookup_resource
_inflight, _inflight_lock = {}, threading.Lock()


def lookup_resource(self, tool, arguments, ctx):
    _, path = expand(tool.downstream["resource"], arguments, None)
    with _inflight_lock:
        entry = _inflight.get(path)
        leader = entry is None
        if leader:  # BUG: keyed by the URL alone, shared by every caller
            entry = _inflight[path] = {"done": threading.Event()}
    if leader:
        try:
            entry["value"] = _original_lookup(self, tool, arguments, ctx)
        except Refusal as refusal:
            entry["error"] = refusal
        finally:
            with _inflight_lock:
                _inflight.pop(path, None)
            entry["done"].set()
    elif not entry["done"].wait(max(ctx.remaining_ms(), 0) / 1000):
        raise Refusal("timeout_not_started", "the deadline passed while checking access", reason="deadline_elapsed")
    if "error" in entry:
        raise entry["error"]
    return entry["value"]


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
