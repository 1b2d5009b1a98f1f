#!/usr/bin/env python3
"""Bug: the HTTP client's timeout is a fixed 30 s instead of the time left of the call's deadline, so a late
downstream answer is waited for and passed on as a success long after the caller gave up.

Where it ships: `requests.post(url, json=body, timeout=30)`, the constant every code review asks for; the
deadline is checked before sending and then forgotten.

Expected catch: answer-within-deadline and expectations (idempotency/timeout_after_commit_reconciles,
idempotency/email_not_sent_twice, deadline/read_timeout_is_retryable).
"""

import http.client
import json

from correct import cp, serve

HTTP_TIMEOUT_S = 30


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    remaining = ctx.remaining_ms()
    if remaining <= 0:
        raise cp.TimedOut()
    headers = self.headers(method, ctx, key, remaining)
    body = None
    if method in ("POST", "PUT"):
        body = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(self.host, self.port, timeout=HTTP_TIMEOUT_S)  # the bug
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
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
