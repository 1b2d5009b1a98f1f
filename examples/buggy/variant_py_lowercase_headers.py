"""Correct variant (blind round 18, second batch): the Python example (http.client) sends the header names it sets
in lower case (`x-deadline-ms`, `x-tenant-id`, `x-subject-id`, `x-request-id`, `idempotency-key`, `content-type`),
as HTTP/2-era client libraries do. A wrapper of `Downstream.headers` and one changed line of `Downstream.send`.

Permitted by: RFC 9110 §5.1 (field names are case-insensitive); docs/protocol.md's header table asks no casing.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import changed_copy, cp, serve  # noqa: E402

_headers = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    return {name.lower(): value for name, value in _headers(self, method, ctx, key, remaining).items()}


cp.Downstream.headers = headers
changed_copy(cp.Downstream, "send", 'headers["Content-Type"] = "application/json"',
             'headers["content-type"] = "application/json"')

if __name__ == "__main__":
    serve(__file__)
