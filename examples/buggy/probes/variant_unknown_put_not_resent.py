#!/usr/bin/env python3
"""Written another way, and a judgement call: after an unknown outcome of a repeatable write (`set_preference`,
a PUT, which has no status query), a retry does not send the PUT again; it keeps answering `timeout_unknown`
(`reason: unreconcilable`), as it does for a non-repeatable tool without a status query.

Where it ships: conservative executors that never resend anything whose outcome is unknown without asking the
downstream first, whatever the tool.

Permitted? docs/conformance-app.md: "`set_preference` has no status query: a `PUT` is repeatable, so it **may**
simply be sent again", and the scenario's own description: "a retry **may** simply send the same PUT again".
Against it: docs/protocol.md "A tool without a status query is sent again only if it is `repeatable` (a `PUT`);
otherwise it stays `timeout_unknown` (`reason: unreconcilable`)" (read as if/else) and docs/errors.md "a tool
that can neither be asked nor safely repeated keeps answering `timeout_unknown`" (a PUT can be safely
repeated).

Expected: fails `expectations` on idempotency/repeatable_write_after_drop (its retry pins `ok = true`). The
report says whether the docs or the scenario should change.
"""

import os
import sys

# A probe, kept out of examples/buggy (and its manifest) while it fails today: correct.py is one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from correct import cp, serve  # noqa: E402

ORIGINAL_RECONCILE = cp.Executor.reconcile


def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
    if tool.downstream.get("status") is None and tool.entry.get("repeatable"):
        return cp.fail(cp.Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                                  "be reconciled automatically", reason="unreconcilable"), meta)
    return ORIGINAL_RECONCILE(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta)


cp.Executor.reconcile = reconcile

if __name__ == "__main__":
    serve(__file__)
