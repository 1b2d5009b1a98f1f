"""Independent Node executor with one bug: the derived idempotency key hashes JSON.stringify of the arguments.

Bug: without a business request id, the key's material is the SHA-256 of `JSON.stringify(arguments)` instead of
the SHA-256 of the canonical arguments. JSON.stringify keeps the members in the order the model wrote them, so the
same arguments re-emitted in another order (or the same call from a client that builds the object in another
order) get another key: no replay, no conflict, the operation executes a second time. With a business request id
nothing changes; the record's fingerprint (conflict detection) is still the canonical hash.

Where it ships: `crypto.createHash('sha256').update(JSON.stringify(body))` is the everyday JavaScript way to "hash
an object" for idempotency keys, cache keys and dedupe sets.

Doc sentence: docs/protocol.md (Canonical JSON and the approval hash): the key is "followed by `b` and the business
request id when there is one, else by `a` and the 32 raw bytes of the arguments' SHA-256" (the SHA-256 of the
canonical JSON); docs/errors.md idempotency_conflict: "the caller reused a business request id (or, without one,
the derived key) for a call whose canonical arguments differ"; docs/protocol.md "one key per business operation".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "tool.name, brid, argsHashRaw);"
NEW = "tool.name, brid, sha256(Buffer.from(JSON.stringify(plain), 'utf8')));"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
