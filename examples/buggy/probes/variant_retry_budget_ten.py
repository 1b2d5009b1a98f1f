#!/usr/bin/env python3
"""Written another way, and a judgement call: the executor allows 10 executions of a business operation that
keeps failing retryably before it answers `retry_budget_exhausted`, instead of 5.

Where it ships: retry budgets are configuration (5, 10, "3 per hour"); a payment team may allow more attempts
than a chat-tool team.

Permitted? docs/errors.md, retry_budget_exhausted: "a business operation failed retryably as many times as the
executor allows (**default** 5 executions)" (a default, i.e. configurable), Details: "`attempts`, the number of
executions started". Nothing in docs/protocol.md or docs/conformance-app.md says the conformance app runs with
the default; the malformed corpus does say so for its own limits ("Every case runs ... with the executor's
default limits (1 MiB of raw arguments, nesting depth 64)"), and nothing says it for this one.

Expected: fails `expectations` on idempotency/retry_budget_exhausted (it pins the 6th attempt). The report
says whether the docs or the scenario should change.
"""

import os
import sys

# A probe, kept out of examples/buggy (and its manifest) while it fails today: correct.py is one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from correct import cp, serve  # noqa: E402

cp.MAX_ATTEMPTS = 10

if __name__ == "__main__":
    serve(__file__)
