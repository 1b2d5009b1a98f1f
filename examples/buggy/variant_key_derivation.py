#!/usr/bin/env python3
"""Correct, written another way: the idempotency key is derived differently from the reference's record format
2. It is the SHA-256 (lowercase hex) of the canonical JSON array ["callproof-key/v7", tenant, subject, tool,
"brid", business_request_id], or, without a business request id, [..., "args", canonical arguments]; still one
key per business operation, never the call_id or the attempt.

Where it ships: every team derives its own key (a JSON tuple, a URL-safe string, a namespaced UUIDv5 hashed).

Permitted by docs/protocol.md: "Any key works as long as it is one per business operation and a 64-character
lowercase hex string (the envelope schema's pattern): keys are never compared across executors."

Expected: passes every check under --profile all. A false-positive probe for a harness that recomputes the
reference's key (same-key, reconcile-before-resend, status-query matching in the mocked downstream).
"""

import hashlib
import json

from correct import cp, serve


def derive_key(auth, tool, canonical_arguments, business_request_id):
    parts = ["callproof-key/v7", auth["tenant_id"], auth["subject_id"], tool]
    parts += ["brid", business_request_id] if business_request_id is not None else ["args", canonical_arguments]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()


cp.derive_key = derive_key

if __name__ == "__main__":
    serve(__file__)
