#!/usr/bin/env python3
"""Correct, written another way: POST and PUT bodies go out with `Transfer-Encoding: chunked` (in two chunks)
instead of a `Content-Length`.

Where it ships: HTTP clients that stream request bodies (a generator body in requests or http.client, Node's
`http.request` without a Content-Length, Go when the body's length is unknown, gRPC-style gateways).

Permitted by docs/protocol.md: "`POST` and `PUT` send the arguments as a JSON body": how HTTP/1.1 frames the
body (RFC 9112 §6: Content-Length or chunked transfer coding) is HTTP's business, and every HTTP/1.1
server must read both.

Expected: passes every check under --profile all.
"""

import http.client

from correct import cp, serve


class ChunkedConnection(http.client.HTTPConnection):
    def request(self, method, url, body=None, headers=None, **options):
        if isinstance(body, bytes) and body:
            middle = len(body) // 2
            body = iter([body[:middle], body[middle:]])
            options["encode_chunked"] = True
        super().request(method, url, body=body, headers=headers or {}, **options)


cp.http.client.HTTPConnection = ChunkedConnection

if __name__ == "__main__":
    serve(__file__)
