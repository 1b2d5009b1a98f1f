"""Independent Node executor with one bug: retention by a per-record timer whose delay overflows.

Bug: the file store enforces the retention window of settled records with one `setTimeout(delete, RETENTION_MS)`
per record, and the window is 30 days. 30 days is 2 592 000 000 ms, more than a timer can hold (2^31 - 1 ms,
about 24.8 days): Node prints a TimeoutOverflowWarning on stderr and sets the delay to 1 ms, so every settled
record (SUCCEEDED, FAILED_RETRYABLE, FAILED_FINAL) is deleted about 1 ms after it settles. A retry then finds no
record and executes the business operation again.

Where it ships: in-memory TTL stores and caches that schedule one timer per entry (express-session's MemoryStore
and similar session stores with a long maxAge, hand-written TTL maps); "30 days" is a common retention choice.

Doc sentence: docs/stores.md, Retention: "Settled records (SUCCEEDED, FAILED_RETRYABLE, FAILED_FINAL) are kept for
the retention window after their last transition ... A retry of the same business request after that window
executes again, so the window must outlast every client's retries."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    "const MAX_BODY = 1024 * 1024;",
    "put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }",
)
NEW = (
    "const MAX_BODY = 1024 * 1024;\n"
    "const RETENTION_MS = 30 * 24 * 60 * 60 * 1000; // settled records are kept 30 days\n"
    "const SETTLED = new Set(['SUCCEEDED', 'FAILED_RETRYABLE', 'FAILED_FINAL']);",
    "put(key, rec) {\n"
    "    rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush();\n"
    "    this.expiry ??= new Map();\n"
    "    clearTimeout(this.expiry.get(key));\n"
    "    if (SETTLED.has(rec.state)) {\n"
    "      // retention: forget a settled record once its window has passed\n"
    "      this.expiry.set(key, setTimeout(() => {\n"
    "        if (this.data.records[key] === rec) { delete this.data.records[key]; this.flush(); }\n"
    "      }, RETENTION_MS).unref());\n"
    "    }\n"
    "  }",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
