"""Bug: null arguments are left out of the request body.

`Downstream.send` builds the JSON body from the arguments without their null members (pydantic's
`model_dump(exclude_none=True)`, or `{k: v for k, v in args.items() if v is not None}` "to keep payloads clean").
A full refund, `{"order_id": ..., "amount": null, "reason": ...}`, is posted as `{"order_id": ..., "reason": ...}`:
the downstream is not sent the arguments the call was validated, authorized and approved with.

Doc sentence broken: docs/protocol.md "`POST` and `PUT` send the arguments as a JSON body"; docs/conformance-app.md
"optional values are nullable (`amount: null` refunds the whole refundable amount ...)".

Where it ships: API clients generated from OpenAPI with pydantic models (exclude_none is the default in several
generators), and hand-written tool wrappers that strip None before calling requests.post(json=...).

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import http.client
import json

from correct import cp, serve


def send(self, template, arguments, ctx, key=None):
    method, target = cp.expand(template, arguments, key)
    remaining = ctx.remaining_ms()
    if remaining <= 0:
        raise cp.TimedOut()
    headers = self.headers(method, ctx, key, remaining)
    body = None
    if method in ("POST", "PUT"):
        payload = {name: value for name, value in arguments.items() if value is not None}  # BUG: exclude_none
        body = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
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
            raise cp.Lost()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
