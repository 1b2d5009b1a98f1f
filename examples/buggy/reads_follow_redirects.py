"""Buggy executor: GET requests follow redirects, wherever they point, with every header they carried.

Behaviour: a read (a read tool's request, the ownership lookup, a status query) answered 3xx with a `Location` is
sent again to that location (up to 5 hops), with the same headers: X-Tenant-Id, X-Subject-Id, X-Request-Id and the
Idempotency-Key of a status query go along. Writes still never follow a redirect.

Where it ships: requests' default `allow_redirects=True` for GET (`requests.get`), and hand-written "GETs are safe
to follow" clients; requests strips only `Authorization` when the host changes, never custom identity headers.

Doc sentence it breaks: docs/conformance-app.md, "An executor never follows a redirect; a request goes to the
configured downstream only, and identity headers never leave it." (docs/protocol.md: "3xx (a redirect: never
follow it)".)
"""

import http.client
import urllib.parse

from correct import cp, serve

MAX_HOPS = 5


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
    host, port = self.host, self.port
    for hop in range(MAX_HOPS + 1):
        connection = http.client.HTTPConnection(host, port, timeout=max(ctx.remaining_ms(), 1) / 1000)
        try:
            try:
                connection.connect()
            except OSError:
                raise cp.NotSent()
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
            answer = response.status, {name.lower(): value for name, value in response.getheaders()}, data
        finally:
            connection.close()
        location = answer[1].get("location")
        # BUG: a GET changes nothing, so following its redirect "is safe" -- headers and all, to any origin.
        if method == "GET" and 300 <= answer[0] < 400 and location and hop < MAX_HOPS:
            parsed = urllib.parse.urlsplit(urllib.parse.urljoin("http://%s:%s%s" % (host, port, target), location))
            host, port = parsed.hostname, parsed.port or 80
            target = parsed.path + ("?" + parsed.query if parsed.query else "")
            headers["X-Deadline-Ms"] = str(ctx.remaining_ms())
            continue
        return answer


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
