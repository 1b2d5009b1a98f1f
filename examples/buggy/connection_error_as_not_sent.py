"""Buggy executor: a connection that breaks after the request was written is reported as "nothing was sent".

Behaviour: every connection-level failure (refused, reset, or closed after the request went out, as when the
server commits and drops the connection) is answered `dependency_unavailable` with `reason: not_sent`, retryable.
Only a deadline that passed is still reported as a timeout.

Where it ships: clients built on requests/httpx that catch `requests.ConnectionError` (which wraps both a refused
connect and `RemoteDisconnected` / "Connection aborted" after the request was written) as "could not reach the
service, safe to retry".

Doc sentence it breaks: docs/protocol.md, "connection refused | not sent | dependency_unavailable (reason:
not_sent)" versus "the connection closed after sending | unknown | tools with side effects: timeout_unknown, never
retryable"; docs/conformance-app.md, "A request that was sent is never reported as not sent (reason: not_sent):
that answer is only for a connection that could not be made."
"""

import http.client

from correct import cp, serve


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
    connection = http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000)
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
            # BUG: a connection error is a connection error: "couldn't reach it, nothing happened" -- even when the
            # request was already written and the server closed the connection after committing it.
            raise cp.NotSent()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
