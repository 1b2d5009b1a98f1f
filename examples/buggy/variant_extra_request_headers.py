#!/usr/bin/env python3
"""Correct, written another way: every downstream request carries more headers than the contract lists: a
product `User-Agent` (`acme-agent-executor/2.3.1 (+https://acme.example/bot) python-http.client`), `Accept:
application/json`, `Connection: close`, a W3C `traceparent` and `X-Client-Version`.

Where it ships: every production HTTP client sets a User-Agent and tracing headers.

Permitted by docs/protocol.md: "Every request carries:" the table's headers; nothing forbids others.
docs/conformance-app.md: "identity headers never leave" the configured downstream; these carry no identity.

Expected: passes every check under --profile all.
"""

import os

from correct import cp, serve

ORIGINAL_HEADERS = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    found = ORIGINAL_HEADERS(self, method, ctx, key, remaining)
    found.update({"User-Agent": "acme-agent-executor/2.3.1 (+https://acme.example/bot) python-http.client",
                  "Accept": "application/json", "Connection": "close", "X-Client-Version": "2.3.1",
                  "traceparent": "00-%s-%s-01" % (os.urandom(16).hex(), os.urandom(8).hex())})
    return found


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
