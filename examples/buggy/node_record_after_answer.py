"""node_record_after_answer: the outcome is saved fire-and-forget and the envelope answered at once.

Behaviour: the pipeline starts the store write of the outcome without awaiting it (an async save that takes a
store round trip, modelled as 20 ms, a remote store) and answers the envelope immediately. A retry or duplicate
that arrives right after the answer still finds the record IN_PROGRESS: operation_in_progress instead of the
replay.

Where it ships: `res.json(envelope); store.save(record);` without await, or `void repo.save(...)` in handlers
tuned for latency; also `.then()` chains whose save is not returned.

Doc sentence it breaks: docs/protocol.md step 8 "**Record** the outcome, then answer with the envelope"; step 3
"a finished one is replayed (`meta.replayed = true`)".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "    if (held) this.settle(held, state, envelope);\n    return envelope;"
# BUG: the save is not awaited; the answer goes out before the record is settled.
NEW = ("    // BUG: fire-and-forget save (one store round trip); the envelope is answered before it lands\n"
       "    if (held) void new Promise((done) => setTimeout(done, 20)).then(() => this.settle(held, state, envelope));\n"
       "    return envelope;")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
