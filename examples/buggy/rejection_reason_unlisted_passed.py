#!/usr/bin/env python3
"""Bug: a downstream refusal's `error.reason` is passed through as `details.reason` whatever it is, instead of
only when the catalog's `rejection_reasons` lists it ("the service knows best").

Where it ships: error mappers that forward the upstream's error code to the caller; the catalog's reason list is
the tool's contract with the model, and an unlisted reason is an internal code it cannot act on.
docs/protocol.md: `details.reason` only if the catalog's `rejection_reasons` lists it (else `not_found` /
`downstream_rejected`).

Expected catch: expectations on details.reason, in a scenario where the downstream refuses with an unlisted
reason.
"""

import json

from correct import cp, serve


def rejection(tool, body, default_reason):
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        error = None
    error = error if isinstance(error, dict) else {}
    reason = error.get("reason")
    if not isinstance(reason, str) or not reason:  # BUG: any reason is passed on, listed or not
        reason = default_reason
    refusal = cp.Refusal("business_rejected", "a business rule refused the request", reason=reason)
    if isinstance(error.get("field"), str) and error["field"] in tool.declared_in:
        refusal.details["field"] = error["field"]
    return refusal


cp.rejection = rejection

if __name__ == "__main__":
    serve(__file__)
