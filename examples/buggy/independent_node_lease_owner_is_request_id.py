"""Independent Node executor with one bug: a claim records the request id as the lease owner, but the lease check
compares the owner with the process's id, so a duplicate takes over a live record as if its holder had died.

Where it ships: an owner field filled in by one author with the request and read by another as the instance.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    rec = { key, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,"
NEW = "    rec = { key, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: meta.request_id,"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
