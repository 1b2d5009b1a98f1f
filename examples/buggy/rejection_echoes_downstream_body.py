#!/usr/bin/env python3
"""Bug: a downstream refusal (404, 409, 422) is answered business_rejected with the downstream's raw body in the
message, "so the model knows why".

Where it ships: tool wrappers that pass the service's error text through (`f"refused: {resp.text}"`); 4xx
bodies of real services carry internal ids, validation internals and sometimes other customers' data.

Expected catch: no-secret-leak (every refusal of the mocked downstream carries internal text beside its reason).
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
    if reason not in tool.entry.get("rejection_reasons", []):
        reason = default_reason
    # the bug: the raw answer goes into the message
    refusal = cp.Refusal("business_rejected", "the downstream refused the request: %s"
                         % body.decode("utf-8", "replace")[:500], reason=reason)
    if isinstance(error.get("field"), str) and error["field"] in tool.declared_in:
        refusal.details["field"] = error["field"]
    return refusal


cp.rejection = rejection

if __name__ == "__main__":
    serve(__file__)
