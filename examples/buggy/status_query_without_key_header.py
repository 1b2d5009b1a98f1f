#!/usr/bin/env python3
"""Bug: the Idempotency-Key header is sent on writes only; status queries (GETs) carry the key in the query
string but not in the header the contract asks for.

Where it ships: HTTP clients that attach Idempotency-Key to mutating methods only (Stripe's and most SDKs'
rule), reused for the status query of a reconciler.

Expected catch: same-key (every status query of an operation carries its key) in the reconciliation scenarios
(idempotency/duplicate_refund_after_lost_response, idempotency/timeout_after_commit_reconciles).
"""

from correct import cp, serve

ORIGINAL_HEADERS = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    # the bug: GET requests never get the header
    return ORIGINAL_HEADERS(self, method, ctx, None if method == "GET" else key, remaining)


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
