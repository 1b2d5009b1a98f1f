#!/usr/bin/env python3
"""Correct, written another way: within one call, an identical GET is sent once. For `get_order` and
`task_status` the catalog's resource lookup and the tool's own request are the same request (`GET
/orders/{order_id}`, `GET /exports/{task_id}`); this executor authorizes on the answer and then answers the call
from that same answer instead of reading the same URL a second time a few milliseconds later.

Where it ships: executors that load the resource once and authorize and answer from it (the usual shape of a
REST handler: fetch, check owner, return), or an HTTP client with a per-request-scope cache.

Permitted by docs/conformance-app.md: "A resource (order or account) is loaded with `GET /orders/{id}` /
`GET /accounts/{id}`; its `tenant_id` must be the caller's" and the tool table (get_order's downstream is
`GET /orders/{order_id}`): the one request is both. A GET changes nothing, so reading once or twice cannot
differ in effect; the answer is projected and validated against the output schema as before. Keyed requests
(status queries) are never reused.

Expected: passes every check under --profile all. A false-positive probe for checks and expectations that
count requests per call (a fault's `nth`, request-id-propagated, deadline-propagated's "restarted" rule).
"""

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    if method != "GET" or key is not None:
        return ORIGINAL_SEND(self, template, arguments, ctx, key)
    cache = ctx.__dict__.setdefault("reads", {})
    if target not in cache:
        cache[target] = ORIGINAL_SEND(self, template, arguments, ctx, key)
    return cache[target]


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
