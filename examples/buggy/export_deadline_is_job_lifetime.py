#!/usr/bin/env python3
"""export_account_data: POST /exports carries the job's lifetime as X-Deadline-Ms, not the call's time left.

Bug: the export submission sends `X-Deadline-Ms: 600000` (ten minutes, "the export runs longer than any call")
instead of the milliseconds left of the call's budget. The call itself is still bounded by its budget.
Where it ships: async/task submission code that hands the job's timeout to the service in the request's
deadline header.
Breaks: docs/conformance-app.md "The submission's `budget_ms` bounds the call that starts the job (and is sent as
`X-Deadline-Ms` on `POST /exports`)".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Downstream, "send",
             "        headers = self.headers(method, ctx, key, remaining)\n",
             "        headers = self.headers(method, ctx, key, remaining)\n"
             "        if template == \"POST /exports\":\n"
             "            headers[\"X-Deadline-Ms\"] = str(10 * 60 * 1000)\n")

if __name__ == "__main__":
    serve(__file__)
