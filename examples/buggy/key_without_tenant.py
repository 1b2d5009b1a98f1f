#!/usr/bin/env python3
"""Bug: the idempotency key is derived from the business request id and the tool only, not the caller.

Where it ships: idempotency middleware keyed by the client's `Idempotency-Key` header alone (a Redis key
`idem:{key}`), in a service later made multi-tenant: two tenants (or two users) that happen to send the same
request id share one record, and the second gets the first one's result replayed.

Expected catch: nothing today unless a scenario lets two callers share a business request id.
"""

import json

from correct import cp, serve


def derive_key(auth, tool, canonical_arguments, business_request_id):
    material = "{"
    if business_request_id is not None:
        material += '"business_request_id":' + json.dumps(business_request_id, ensure_ascii=False)
    else:
        material += '"arguments":' + canonical_arguments
    material += ',"tool":' + json.dumps(tool, ensure_ascii=False) + "}"  # the bug: no subject_id, no tenant_id
    return cp.sha256_hex(material)


cp.derive_key = derive_key

if __name__ == "__main__":
    serve(__file__)
