#!/usr/bin/env python3
"""Bug: the Node executor reads the budget as `budget_ms || 30000`, so a budget of 0 (legal, minimum 0) becomes a
30 s default and the call runs.

Where it ships: `opts.timeout || DEFAULT_TIMEOUT` defaults everywhere in JS. docs/protocol.md: "One deadline per
call: refuse to start after it (`timeout_not_started`)"; docs/errors.md, timeout_not_started: "the budget was spent
by the time the tool would be called".

Expected checks: expectations and deadline-propagated (X-Deadline-Ms above the budget) on deadline/zero_budget.
Written blind in round 4 (examples/buggy/BLIND4.md).

This module runs the Node executor (examples/buggy/node/callproof_executor.mjs) with the one change
below, through examples/buggy/node/patched.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402  (examples/buggy/node is not a package)

OLD = "    const budget = plain(message.budget_ms);\n"

NEW = (
    "    // BUG: || takes a budget of 0 for a missing one.\n"
    "    const budget = plain(message.budget_ms) || 30000;\n"
)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
