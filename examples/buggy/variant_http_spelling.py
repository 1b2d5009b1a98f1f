#!/usr/bin/env python3
"""Correct, written another way: downstream requests are spelled differently. Header names are lower case,
three more headers go with every request (User-Agent, Accept, a per-request X-Attempt-Trace), and a POST or PUT
body is the arguments in a random member order with spaces (`{"reason": "x", "order_id": ...}`) instead of
sorted compact JSON, shuffled anew on every request (a retry's body differs in bytes from the first's).

Where it ships: HTTP clients that lower-case header names (HTTP/2 requires it, and so do fetch, Go's http2,
aiohttp with some middleware), SDKs that add a User-Agent, and JSON encoders without a stable member order.

Permitted by docs/protocol.md: "`POST` and `PUT` send the arguments as a JSON body" (any JSON text of the same
value; RFC 8259 objects are unordered) and the header table, which names headers and values but no case (RFC
9110 §5.1: "Field names are case-insensitive"); it lists the headers every request carries, not the only ones.

Expected: passes every check under --profile all. A false-positive probe for the mocked downstream and the
checks that read headers and bodies: identical repeatable writes (the same PUT) must still count once when
their bytes differ (single-effect, expectations' ledger), and same-key / deadline-propagated /
request-id-propagated must read header names without regard to case.
"""

import json
import random
import uuid

from correct import cp, serve

ORIGINAL_HEADERS = cp.Downstream.headers
ORIGINAL_DUMPS = json.dumps


def headers(self, method, ctx, key, remaining):
    spelled = {name.lower(): value for name, value in ORIGINAL_HEADERS(self, method, ctx, key, remaining).items()}
    spelled["user-agent"] = "callproof-variant/1.0 (python http.client)"
    spelled["accept"] = "application/json"
    spelled["x-attempt-trace"] = uuid.uuid4().hex
    return spelled


def shuffled_dumps(value, **options):
    # Only the body of Downstream.send is dumped with sort_keys; keep every other use as it was.
    if options.get("sort_keys") and isinstance(value, dict):
        items = list(value.items())
        random.shuffle(items)
        return ORIGINAL_DUMPS(dict(items), ensure_ascii=False, separators=(", ", ": "))
    return ORIGINAL_DUMPS(value, **options)


class _Json:
    """The json module as Downstream.send sees it, with the body's dumps shuffled."""

    def __getattr__(self, name):
        return shuffled_dumps if name == "dumps" else getattr(json, name)


cp.Downstream.headers = headers
cp.json = _Json()

if __name__ == "__main__":
    serve(__file__)
