"""The reconciliation's status query (`GET /refunds?idempotency_key=K`, the only GET that carries an
Idempotency-Key) goes out without `X-Deadline-Ms`: the downstream cannot bound its work by the call's deadline,
and a slow status query holds the retry past it.

Where it ships: a reconcile helper written apart from the main HTTP client, which adds the deadline header only to
the tool's own requests (and the ownership lookup that shares their code path).

Breaks docs/protocol.md (HTTP contract): "Every request carries: ... X-Deadline-Ms | the milliseconds left of the
call's budget when the request is sent" (a status query is one of the call's requests).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_headers = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    sent = _headers(self, method, ctx, key, remaining)
    if method == "GET" and key is not None:  # a status query
        sent.pop("X-Deadline-Ms")  # BUG: the status query carries no deadline
    return sent


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
