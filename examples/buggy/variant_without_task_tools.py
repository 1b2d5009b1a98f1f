#!/usr/bin/env python3
"""Correct, written another way: an executor without the three task tools (`export_account_data`,
`task_status`, `task_cancel`). It leaves them out of `capabilities.tools` and knows no tool by those names.

Where it ships: executors with no long-running work, or written before the task tools were added.

Permitted by docs/protocol.md: "An executor that does not implement the task tools leaves them out of
`capabilities.tools`, and the scenarios under `scenarios/tasks/` are skipped."

Expected: the five scenarios under tasks/ are skipped and every other scenario passes under --profile all.
"""

from correct import cp, serve

ORIGINAL_INIT = cp.Executor.__init__
LEFT_OUT = ("export_account_data", "task_status", "task_cancel")


def __init__(self, hello):
    ORIGINAL_INIT(self, dict(hello, catalog=[entry for entry in hello["catalog"] if entry["name"] not in LEFT_OUT]))


cp.Executor.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
