"""VARIANT: downstream requests use the absolute-form request target, as a client set up for a forward proxy sends.

Behaviour: the request line of every downstream request names the whole URL
(`POST http://127.0.0.1:41234/refunds HTTP/1.1`) instead of the origin-form path (`POST /refunds HTTP/1.1`); the
`Host` header, the headers, the body and the connection (to the configured downstream itself) are the example's.

Where it ships: HTTP clients configured with an HTTP forward proxy or a service-mesh egress gateway (requests/urllib3
and curl with `http_proxy`, Java's `HttpURLConnection` through a proxy) write absolute-form targets.

Relies on docs/protocol.md: "`downstream_url`: the base URL of the conformance app's services; append request paths to
it" (the request is that URL; no request-target form is prescribed), and RFC 9112 §3.2.2: "a server MUST accept the
absolute-form in requests".
"""

import json

from correct import cp, serve

NotSent, Lost, TimedOut, http = cp.NotSent, cp.Lost, cp.TimedOut, cp.http


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    # VARIANT: absolute-form target on the request line.
    target = "http://%s:%d%s" % (self.host, self.port, target)
    remaining = ctx.remaining_ms()
    if remaining <= 0:
        raise TimedOut()
    headers = self.headers(method, ctx, key, remaining)
    body = None
    if method in ("POST", "PUT"):
        body = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000)
    try:
        try:
            connection.connect()
        except OSError:
            raise NotSent()
        ctx.sent = True
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read(4 * 1024 * 1024)
        except TimeoutError:
            raise TimedOut()
        except (OSError, http.client.HTTPException):
            if ctx.remaining_ms() <= 0:
                raise TimedOut()
            raise Lost()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
