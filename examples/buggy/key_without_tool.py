"""The idempotency key hashes the tenant, the subject and the business request id (or the arguments) but not the
tool: the same business request id used on two tools (a refund and an email of one workflow, or an export and
its cancel) is taken as one operation, so the second tool's call is `idempotency_conflict` or replays the first
tool's answer, and never reaches its downstream.

Where it ships: keys derived from the client's request id alone (the Stripe-style "one Idempotency-Key per client
request" header, forwarded as the key for whatever tool the request names).

Breaks docs/protocol.md: "one key per business operation" and the key's material "tenant_id FF subject_id FF
tool FF ... followed by b and the business request id"; docs/stores.md record format 2.
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402


def derive_key(auth, tool, canonical_arguments, business_request_id):
    # BUG: the tool's name is not part of the key's material
    material = b"".join(name.encode("utf-8") + b"\xff" for name in (auth["tenant_id"], auth["subject_id"]))
    if business_request_id is not None:
        material += b"b" + business_request_id.encode("utf-8")
    else:
        material += b"a" + hashlib.sha256(canonical_arguments.encode("utf-8")).digest()
    return hashlib.sha256(material).hexdigest()


cp.derive_key = derive_key

if __name__ == "__main__":
    serve(__file__)
