"""node_canonical_sort_boolean_comparator: canonical JSON sorts keys with a boolean comparator, keeping input order.

Behaviour: canonical JSON sorts member names with `keys.sort((a, b) => a > b)`. A comparator must return a negative,
zero or positive number; a boolean is 1 or 0, never negative, and V8's TimSort (Node 11+) then leaves the array as
it came. The "canonical" text keeps the model's key order, so the same arguments re-emitted in another order get
another fingerprint (idempotency_conflict instead of a replay), and an approval hash over several keys would not
match.

Where it ships: JS stable-stringify helpers and hashing code (the boolean comparator "worked" in V8 before 2018's
TimSort for short arrays, and still does in some engines).

Doc sentence it breaks: docs/protocol.md, "Canonical JSON and the approval hash": "object members sorted by the
UTF-8 bytes of their keys"; docs/errors.md idempotency_conflict: "canonical arguments differ from the first call's".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "if (canonicalForm) keys = keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));"
# BUG: a comparator returning a boolean is never negative; V8 keeps the input order.
NEW = "if (canonicalForm) keys = keys.sort((a, b) => a > b);"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
