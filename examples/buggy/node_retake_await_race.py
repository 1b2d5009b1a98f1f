"""node_retake_await_race: a FAILED_RETRYABLE record's retake awaits an audit write before taking it.

Behaviour: retaking a record after a retryable failure writes an audit line first (`await appendFile(...)`, real
file I/O) between reading the record as FAILED_RETRYABLE and marking it IN_PROGRESS. The first claim of a key stays
synchronous (atomic on the event loop), but this read-modify-write is not: two retries of the same business request
that arrive together after a 503 or a 429 both see FAILED_RETRYABLE, both take the record, and both send.

Where it ships: executors whose claim is atomic for the insert (SET NX / INSERT ... ON CONFLICT, or a Map.set with
no await) but whose retake path awaits something (an audit log, a store read) before writing.

Doc sentence it breaks: docs/protocol.md step 3: "a duplicate while the first runs is operation_in_progress";
checks.md single-effect ("a business operation commits at most one effect across retries, duplicates, bursts").

The change has two places, the imports at the top and the retake in `Executor`; OLD is the one span from the first
to the second, cut out of the executor between two anchors (each must occur once) rather than spelt out.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

FIRST = "import { createHash } from 'node:crypto';\n"
# BUG, 1 of 2: the audit write's imports.
FIRST_NEW = FIRST + "import { appendFile } from 'node:fs/promises';\nimport { devNull } from 'node:os';\n"
LAST = ("        Object.assign(record, { state: 'IN_PROGRESS', epoch: record.epoch + 1, attempts: record.attempts + 1, lease,\n"
        "          deadline: deadlineWall, outcome: null });\n")
# BUG, 2 of 2: an awaited audit write between reading the record as FAILED_RETRYABLE and taking it.
LAST_NEW = ("        // audit trail of every execution started (docs/errors.md: operators read the audit record)\n"
            "        await appendFile(devNull,  // the author's copy wrote a file per process; the null device leaves none\n"
            "          JSON.stringify({ at: new Date().toISOString(), event: 'retake', key, attempt: record.attempts + 1 }) + '\\n');\n"
            # The audit sink's round trip: without it the null device answers so fast that, under load, a retry's
            # line can arrive only after the first retake finished (one run in ten let the bug pass unseen).
            "        await new Promise((resolve) => setTimeout(resolve, 200));\n"
            + LAST)


def span():
    with open(patched.EXECUTOR, encoding="utf-8") as source_file:
        source = source_file.read()
    if source.count(FIRST) != 1 or source.count(LAST) != 1:
        sys.stderr.write(f"node_retake_await_race: an anchor does not occur once in {patched.EXECUTOR}\n")
        sys.exit(2)
    start = source.index(FIRST)
    old = source[start:source.index(LAST) + len(LAST)]
    new = FIRST_NEW + old[len(FIRST):-len(LAST)] + LAST_NEW
    return old, new


if __name__ == "__main__":
    OLD, NEW = span()
    patched.exec_node(__file__, OLD, NEW)
