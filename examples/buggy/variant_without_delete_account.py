#!/usr/bin/env python3
"""Correct, written another way: an executor that does not implement `delete_account`. It leaves the tool out of
`capabilities.tools` and knows no tool by that name (a call to it is `tool_not_found`, as for any name it does
not have); the other eight tools are the example's.

Where it ships: a team adopting the conformance app tool by tool, or one whose product has no destructive
account deletion at all.

Permitted by docs/protocol.md: "`tools`: the catalog tools you implement; scenarios that call another catalog
tool are skipped (and say so)", and the same for the task tools: "An executor that does not implement the task
tools leaves them out of `capabilities.tools`, and the scenarios under `scenarios/tasks/` are skipped."

Expected: every scenario that calls delete_account is skipped, the rest pass under --profile all. A
false-positive probe for scenarios that mix tools: the malformed corpus has a delete_account case, which the
harness leaves out (and the report names), never holding the executor to schema_violation for a tool it
declared it does not have.
"""

from correct import cp, serve

ORIGINAL_INIT = cp.Executor.__init__
LEFT_OUT = "delete_account"


def __init__(self, hello):
    hello = dict(hello, catalog=[entry for entry in hello["catalog"] if entry["name"] != LEFT_OUT])
    ORIGINAL_INIT(self, hello)


cp.Executor.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
