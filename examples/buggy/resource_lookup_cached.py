"""Bug: ownership lookups are cached for 30 s, and the business rule runs on the cached resource.

A wrapper of `Executor.lookup_resource`: a resource the system of record found is kept for 30 s per (tenant,
subject, lookup path), the usual "authorization cache" in front of a slow service. Ownership does not change in
30 s, but the resource is also what the tool's business rule reads: after a first refund the cached order still
shows its old `refundable_amount`, so a second refund above what is left passes the executor's own rule.

Doc sentence broken: docs/conformance-app.md "A resource (order or account) is loaded with `GET /orders/{id}` /
`GET /accounts/{id}`" and "Check business rules before sending: `refund_order.amount ≤ order.refundable_amount`";
docs/errors.md business_rejected "the tool's own rule (for example an amount above the order's refundable amount)
before anything is sent".

Where it ships: policy/authorization caches (TTL caches around "load resource and check owner"), shared between
the access check and the business validation that happens to need the same object.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import time

from correct import cp, serve

CACHE_TTL_S = 30.0
original_lookup = cp.Executor.lookup_resource


def lookup_resource(self, tool, arguments, ctx):
    _, path = cp.expand(tool.downstream["resource"], arguments, None)
    cache_key = (ctx.auth["tenant_id"], ctx.auth["subject_id"], path)
    with self.lock:
        cache = self.__dict__.setdefault("resource_cache", {})
        hit = cache.get(cache_key)
    if hit is not None and hit[0] > time.monotonic():  # BUG: a stale resource feeds the business rule
        return hit[1]
    resource = original_lookup(self, tool, arguments, ctx)
    if resource is not None:
        with self.lock:
            cache[cache_key] = (time.monotonic() + CACHE_TTL_S, resource)
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
