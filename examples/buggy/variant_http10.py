#!/usr/bin/env python3
"""Correct, written another way: every downstream request is sent as HTTP/1.0 (`GET /orders/ord_1 HTTP/1.0`, with
a `Host` header), one request per connection.

Where it ships: minimal HTTP clients, embedded stacks and old proxies that speak HTTP/1.0 only.

Permitted by docs/protocol.md: "Requests are the catalog's `downstream` templates" with the headers of the
table; no HTTP version is named. HTTP/1.1 servers must answer HTTP/1.0 requests (RFC 9110 §2.5, RFC 9112 §2.3).

Expected: passes every check under --profile all. A false-positive probe for the mocked downstream.
"""

import http.client

from correct import serve


class Http10Connection(http.client.HTTPConnection):
    _http_vsn = 10
    _http_vsn_str = "HTTP/1.0"


http.client.HTTPConnection = Http10Connection

if __name__ == "__main__":
    serve(__file__)
