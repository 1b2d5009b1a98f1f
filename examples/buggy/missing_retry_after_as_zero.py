#!/usr/bin/env python3
"""Bug: a 429 without `Retry-After` is answered `retry_after_ms = 0` ("retry now"), not the 1000 ms default.

Where it ships: `int(headers.get("retry-after", 0)) * 1000` (Python), `Number(h ?? 0) * 1000` (JavaScript): the
absent header read as zero, so every caller comes straight back into the same overload. docs/errors.md,
rate_limited: `retry_after_ms`, from the downstream's `Retry-After` or a default of 1000 ms.

Expected check: rate-limit-retry-after and expectations (downstream/rate_limited_without_retry_after).
"""

from correct import cp, serve

_send = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    status, headers, body = _send(self, template, arguments, ctx, key=key)
    if status == 429 and "retry-after" not in headers:
        # the bug: the header's absence read as zero seconds
        headers = dict(headers, **{"retry-after": "0"})
    return status, headers, body


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
