#!/usr/bin/env python3
"""Bug: successful reads are cached by tool and arguments, without the caller, and served before authorization.

Where it ships: tool-result caches added for latency or cost (an `lru_cache` on the tool function, LangChain-
style tool caching, a Redis cache keyed by the tool call): the next caller with the same arguments gets the
first caller's data, whatever their tenant or scopes.

Expected catch: tenant-isolation if a scenario reads one order as two callers; otherwise nothing today.
"""

import threading
import time

from correct import cp, serve

ORIGINAL_PIPELINE = cp.Executor.pipeline
CACHE_SECONDS = 60
_cache, _lock = {}, threading.Lock()


def pipeline(self, call, auth, business_request_id, ctx, meta):
    tool, _, canonical_arguments, _ = cp.decode(call, self.tools)
    if tool.side_effect:
        return ORIGINAL_PIPELINE(self, call, auth, business_request_id, ctx, meta)
    cache_key = (tool.name, canonical_arguments)  # the bug: no tenant, no subject
    with _lock:
        hit = _cache.get(cache_key)
    if hit is not None and hit[0] > time.monotonic():
        return cp.succeed(hit[1], meta)
    envelope = ORIGINAL_PIPELINE(self, call, auth, business_request_id, ctx, meta)
    if envelope["ok"]:
        with _lock:
            _cache[cache_key] = (time.monotonic() + CACHE_SECONDS, envelope["result"])
    return envelope


cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
