#!/usr/bin/env python3
"""Correct, written another way: the call's one deadline keeps a safety margin for the answer's own trip: it is
`budget_ms` minus a tenth of the budget (at most 150 ms) after the line was read. `X-Deadline-Ms` is the time
left of that deadline, so the downstream is told to finish before the executor gives up, and the executor
answers earlier than it needs to.

Where it ships: executors that reserve time to record the outcome and write the answer (a "deadline buffer" in
gRPC and Envoy terms).

Permitted by docs/protocol.md: "`budget_ms`: the time budget ... Turn it into one absolute deadline." and
"**One deadline per call**: refuse to start after it (`timeout_not_started`), bound every request by it": a
deadline inside the budget bounds every request by the budget too. docs/checks.md (deadline-propagated): the
header's value is compared "with 1,000 ms of slack upward and half the time left downward".

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_EXECUTE = cp.Executor.execute
MAX_MARGIN_MS = 150


def execute(self, message, received):
    budget = message["budget_ms"]
    margin = min(MAX_MARGIN_MS, budget // 10)
    return ORIGINAL_EXECUTE(self, dict(message, budget_ms=budget - margin), received)


cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
