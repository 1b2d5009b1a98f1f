#!/usr/bin/env python3
"""Bug: the idempotency key is scoped per tenant, not per caller (the subject is left out of the key).

Where it ships: hosted idempotency keys are per API account (Stripe's are per account), and a multi-user SaaS
that puts its agent behind one account key inherits that scope: two users of one tenant who reuse a business
request id (`br_1`, a counter restarted per chat) share one record. The second user's call is answered with the
first user's replayed result (a read of another owner's data) or an idempotency_conflict, and nothing is executed
for them. docs/protocol.md: one key per business operation of a caller (record format 2 hashes tenant, subject
and tool); conformance-app.md: another owner's data needs support_admin.

Expected check: ok-means-applied (the second user's `ok` has no effect of its own) or tenant-isolation, in a
scenario where two subjects of one tenant reuse a business request id.
"""

import hashlib

from correct import cp, serve


def derive_key(auth, tool, canonical_arguments, business_request_id):
    # BUG: the subject is missing; the key names (tenant, tool) only.
    material = b"".join(name.encode("utf-8") + b"\xff" for name in (auth["tenant_id"], tool))
    if business_request_id is not None:
        material += b"b" + business_request_id.encode("utf-8")
    else:
        material += b"a" + hashlib.sha256(canonical_arguments.encode("utf-8")).digest()
    return hashlib.sha256(material).hexdigest()


cp.derive_key = derive_key

if __name__ == "__main__":
    serve(__file__)
