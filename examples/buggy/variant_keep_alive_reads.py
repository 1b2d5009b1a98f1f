#!/usr/bin/env python3
"""Correct, written another way: reads (`GET`) reuse one keep-alive HTTP/1.1 connection per worker thread;
a reused connection that turns out to be closed before any answer arrived is replaced and the read sent once
more (a `GET` changes nothing). Every other request (`POST`, `PUT`, `DELETE`) gets a fresh connection, so a
side-effecting request is never sent twice by the transport.

Where it ships: connection pools (urllib3, Go's http.Transport, hyper) keep connections alive and retry
idempotent methods on a stale pooled connection.

Permitted by docs/protocol.md: the HTTP contract names requests and headers, not connections; docs/errors.md:
"A read-only tool has nothing to be unsure about", so reading again is safe.

Expected: passes every check under --profile all. A false-positive probe for the mocked downstream (several
requests on one connection) and for checks that count requests.
"""

import http.client
import threading

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send
POOL = threading.local()


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    if method != "GET":
        return ORIGINAL_SEND(self, template, arguments, ctx, key)
    for reused in (True, False):
        remaining = ctx.remaining_ms()
        if remaining <= 0:
            raise cp.TimedOut()
        headers = self.headers(method, ctx, key, remaining)
        connection = getattr(POOL, "connection", None) if reused else None
        fresh = connection is None
        if fresh:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000)
            try:
                connection.connect()
            except OSError:
                raise cp.NotSent()
        else:
            connection.sock.settimeout(remaining / 1000)
        POOL.connection = None
        ctx.sent = True
        try:
            connection.request(method, target, headers=headers)
            response = connection.getresponse()
            data = response.read(4 * 1024 * 1024)
        except TimeoutError:
            connection.close()
            raise cp.TimedOut()
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            connection.close()
            if not fresh:
                continue  # a stale pooled connection: read again on a new one
            if ctx.remaining_ms() <= 0:
                raise cp.TimedOut()
            raise cp.Lost()
        except (OSError, http.client.HTTPException):
            connection.close()
            if ctx.remaining_ms() <= 0:
                raise cp.TimedOut()
            raise cp.Lost()
        if response.will_close:
            connection.close()
        else:
            POOL.connection = connection
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    raise cp.Lost()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
