"""Blind round 19: a per-caller weather cache is keyed by the location only.

The change: weather changes slowly, so successful `get_weather` results are cached for a minute per caller
(tenant and subject, so no caller sees another's reads) under the location the call asked for. The key forgets
`units`: a read of the same location in fahrenheit after one in celsius (or with `units: null`) answers the first
read's result, in the other units. Where it ships: read-through caches keyed by the "main" argument of a tool
(`@lru_cache` on a helper that took only the location when units were added later).

Doc sentence it breaks: the result is the call's own read: docs/conformance-app.md, "2xx with a JSON body |
applied | the body, projected onto the output schema's properties and validated"; the weather service "answers for
exactly the location and units asked" (scenario downstream/location_with_a_space).
"""

import time

from correct import cp, serve

_run_decoded = cp.Executor.run_decoded
_CACHE, _TTL_S = {}, 60.0


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    if tool.name != "get_weather":
        return _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    self.check_caller(tool, arguments_hash, auth)
    key = (auth["tenant_id"], auth["subject_id"], arguments.get("location"))
    with self.lock:
        hit = _CACHE.get(key)
    if hit is not None and hit[0] > time.monotonic():
        return cp.succeed(hit[1], meta)
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    if envelope.get("ok"):
        with self.lock:
            _CACHE[key] = (time.monotonic() + _TTL_S, envelope["result"])
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
