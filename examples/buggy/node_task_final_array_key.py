#!/usr/bin/env python3
"""Bug: the Node executor keys its kept-final-answer Map by a fresh array `[tenant, task_id]`; a Map compares keys
by identity, so the kept answer is never found and every poll reads the job again (a freshly signed download_url
each time).

Where it ships: composite Map keys written as arrays or objects in JS (the Python tuple habit). docs/protocol.md,
Task tools: "the first final poll answer of a handle is kept and answered to every later poll";
docs/conformance-app.md: "an executor keeps the first final answer ... and answers it to every later poll of that
handle".

Expected checks: task-final-stable on tasks/export_polled_to_completion. Written blind in round 4
(examples/buggy/BLIND4.md).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "      finalKey = JSON.stringify([auth.tenant_id, value.task_id]);\n"

NEW = (
    "      // BUG: a fresh array is a new Map key every time: the kept answer is never found.\n"
    "      finalKey = [auth.tenant_id, value.task_id];\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
