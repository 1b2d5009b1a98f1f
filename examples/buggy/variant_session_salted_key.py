#!/usr/bin/env python3
"""Correct, written another way: the idempotency key is HMAC-SHA-256, keyed by the hello's `session`, of the
tenant, subject, tool and operation (the business request id, or the canonical arguments' SHA-256), each part
length-prefixed. Keys stay one per business operation, lowercase hex, 64 characters, and differ between
sessions.

Where it ships: executors that keep sessions (or deployments) apart by salting keys instead of prefixing them,
and that do not want keys guessable from a business request id.

Permitted by docs/protocol.md: "Any key works as long as it is one per business operation and a 64-character
lowercase hex string (the envelope schema's pattern): keys are never compared across executors." and "keep the
records of different sessions apart, e.g. by prefixing every key with the session".

Expected: passes every check under --profile all.
"""

import hashlib
import hmac
import struct

from correct import cp, serve

SESSION = {"value": b""}
ORIGINAL_INIT = cp.Executor.__init__


def init(self, hello):
    ORIGINAL_INIT(self, hello)
    SESSION["value"] = str(hello.get("session", "")).encode("utf-8")


def part(data):
    return struct.pack(">I", len(data)) + data


def derive_key(auth, tool, canonical_arguments, business_request_id):
    material = b"".join(part(name.encode("utf-8")) for name in (auth["tenant_id"], auth["subject_id"], tool))
    if business_request_id is not None:
        material += b"business" + part(business_request_id.encode("utf-8"))
    else:
        material += b"arguments" + part(hashlib.sha256(canonical_arguments.encode("utf-8")).digest())
    return hmac.new(SESSION["value"], material, hashlib.sha256).hexdigest()


cp.Executor.__init__ = init
cp.derive_key = derive_key

if __name__ == "__main__":
    serve(__file__)
