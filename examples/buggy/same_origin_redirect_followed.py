"""Buggy executor: a 307/308 redirect to the same origin is followed, method and body included.

Behaviour: when the downstream answers 307 or 308 with a `Location` on the configured origin, the executor sends
the same request (method, body, headers, Idempotency-Key) to that location and reads that answer as the tool's
answer. Other redirects, and redirects to another origin, are still answers, never followed.

Where it ships: "safe" redirect policies in hand-written clients and httpx/aiohttp wrappers (follow only
method-preserving redirects, and only on the same host, so nothing leaks), often added after a service moved an
endpoint (`/refunds` -> `/v2/refunds`).

Doc sentence it breaks: docs/protocol.md, "3xx (a redirect: never follow it) | sent, unknown | tools with side
effects: timeout_unknown (reason: unexpected_answer), never retryable", and "It never sends a request with side
effects a second time by itself"; docs/conformance-app.md, "An executor never follows a redirect".
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
    for hop in range(MAX_HOPS + 1):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=max(ctx.remaining_ms(), 1) / 1000)
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
        if answer[0] in (307, 308) and location and hop < MAX_HOPS:
            parsed = urllib.parse.urlsplit(urllib.parse.urljoin("http://%s:%s%s" % (self.host, self.port, target),
                                                                location))
            # BUG: a method-preserving redirect on our own origin "is just the endpoint that moved": follow it,
            # re-sending the same method and body (a second POST of a side effect).
            if (parsed.hostname, parsed.port or 80) == (self.host, self.port):
                target = parsed.path + ("?" + parsed.query if parsed.query else "")
                headers["X-Deadline-Ms"] = str(ctx.remaining_ms())
                continue
        return answer


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
