#!/usr/bin/env python3
"""Bug: X-Tenant-Id and X-Subject-Id go only on requests that carry an idempotency key, not on reads.

Where it ships: identity headers added by the same middleware branch that adds `Idempotency-Key` ("writes are
audited, reads are not"), so ownership lookups, `get_order`, `get_weather` and task polls reach the downstream
anonymously. docs/protocol.md: "Every request carries" `X-Tenant-Id`, `X-Subject-Id` (the caller, from `auth`),
so the downstream can enforce and audit its own side of the tenancy.

Expected check: none judges these headers on the configured downstream today (identity-stays-home judges them
only at a foreign origin): likely missed.
"""

from correct import cp, serve


def headers(self, method, ctx, key, remaining):
    headers = {"X-Deadline-Ms": str(remaining)}
    if self.request_id_mode == "envelope":
        headers["X-Request-Id"] = ctx.request_id
    elif self.request_id_mode == "per-request":
        headers["X-Request-Id"] = "req_" + cp.uuid.uuid4().hex
    if key is not None:
        headers["Idempotency-Key"] = key
        # BUG: the caller's identity only with the key.
        headers["X-Tenant-Id"] = ctx.auth["tenant_id"]
        headers["X-Subject-Id"] = ctx.auth["subject_id"]
    return headers


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
