"""Independent Node executor with one bug: the durable file store writes behind, 200 ms after a change.

Bug: the file store coalesces its writes: `put` changes the records in memory and schedules one flush 200 ms later
(`setTimeout`), so that a burst of transitions costs one file write; a flush also runs on a normal exit. A process
killed (SIGKILL) within those 200 ms loses what it wrote: a claim made just before the crash, or an outcome
recorded just before it. The restarted executor finds no record for a side effect that was sent (and maybe
committed), so it executes the operation again, and a changed request is no conflict. The executor still declares
`durable_store`.

Where it ships: write-behind persistence in Node (lowdb/nedb-style autosave intervals, debounced
`fs.writeFile` of a JSON "database"), which trades durability for fewer writes.

Doc sentences: docs/protocol.md features: "`durable_store` | your idempotency records survive a restart of your
process"; Crash faults: "With a durable store the retry must find the record and return the real outcome";
docs/stores.md: "a claim survives ... a process crash: after a restart the executor still knows that a side effect
may have started".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }"
NEW = (
    "put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flushSoon(); }\n"
    "  flushSoon() {\n"
    "    // write behind: one file write for every change of the next 200 ms\n"
    "    if (!this.exitHook) { this.exitHook = true; process.on('exit', () => { if (this.timer) this.flush(); }); }\n"
    "    if (!this.timer) this.timer = setTimeout(() => { this.timer = null; this.flush(); }, 200);\n"
    "  }"
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
