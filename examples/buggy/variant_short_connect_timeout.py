#!/usr/bin/env python3
"""Correct, written another way: connecting to the downstream gets at most 250 ms (or what is left of the
deadline, if less); once connected, the request and its answer get what is left of the call's deadline.
A connection that cannot be made in 250 ms is not sent (`dependency_unavailable`, `not_sent`).

Where it ships: HTTP clients configure a short connect timeout separately from the read timeout (requests'
`timeout=(connect, read)`, Go's `Dialer.Timeout`, reqwest's `connect_timeout`).

Permitted by docs/protocol.md: "bound every request by it" (the deadline) and the table's "connection refused |
not sent | `dependency_unavailable` (`reason: not_sent`)": a connection never made carried no request. On
loopback a connection is made in well under a millisecond.

Expected: passes every check under --profile all.
"""

import http.client

from correct import cp, serve

CONNECT_S = 0.250


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    remaining = ctx.remaining_ms()
    if remaining <= 0:
        raise cp.TimedOut()
    headers = self.headers(method, ctx, key, remaining)
    body = None
    if method in ("POST", "PUT"):
        body = cp.json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(self.host, self.port, timeout=min(CONNECT_S, remaining / 1000))
    try:
        try:
            connection.connect()
        except OSError:
            raise cp.NotSent()
        left = ctx.remaining_ms()
        if left <= 0:
            raise cp.TimedOut()
        connection.sock.settimeout(left / 1000)
        ctx.sent = True
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read(4 * 1024 * 1024)
        except TimeoutError:
            raise cp.TimedOut()
        except (OSError, http.client.HTTPException):
            if ctx.remaining_ms() <= 0:
                raise cp.TimedOut()
            raise cp.Lost()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
