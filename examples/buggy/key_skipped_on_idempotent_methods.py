"""Buggy executor: no Idempotency-Key on PUT and DELETE requests.

Behaviour: the Idempotency-Key header is added to POST requests and status queries, but left off PUT
(`set_preference`) and DELETE (`delete_account`, `task_cancel`), "because those methods are idempotent by
definition".

Where it ships: Stripe-style client middleware and SDK generators that attach idempotency keys only to methods
RFC 9110 calls non-idempotent; the downstream then cannot deduplicate a destructive DELETE it receives twice or
tie it to its status query (`GET /deletions?idempotency_key=K`).

Doc sentence it breaks: docs/protocol.md (header table), "`Idempotency-Key` | the business operation's key, on
side-effecting requests and status queries"; docs/conformance-app.md, "Send these headers on every downstream
request: Idempotency-Key ... (side-effecting requests and status queries)".
"""

import uuid

from correct import cp, serve


def headers(self, method, ctx, key, remaining):
    headers = {"X-Deadline-Ms": str(remaining), "X-Tenant-Id": ctx.auth["tenant_id"],
               "X-Subject-Id": ctx.auth["subject_id"]}
    if self.request_id_mode == "envelope":
        headers["X-Request-Id"] = ctx.request_id
    elif self.request_id_mode == "per-request":
        headers["X-Request-Id"] = "req_" + uuid.uuid4().hex
    # BUG: PUT and DELETE are idempotent methods (RFC 9110), so "they need no key".
    if key is not None and method not in ("PUT", "DELETE"):
        headers["Idempotency-Key"] = key
    return headers


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
