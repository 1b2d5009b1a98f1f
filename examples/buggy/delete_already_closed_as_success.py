#!/usr/bin/env python3
"""delete_account: "already closed" from the account service is answered as a successful deletion.

Bug: a 409 `account_already_closed` on DELETE /accounts/{id} is answered ok `{account_id, deleted: true}`: the
account is closed either way, so the team reads it as an idempotent DELETE's success.
Where it ships: REST clients and cleanup tools that treat "already deleted/closed" as success for DELETE.
Breaks: docs/conformance-app.md "409, 422 ... | refused for good | `business_rejected`; the reason only if the
catalog lists it".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Executor, "call_tool",
             "        default = {404: \"not_found\", 409: \"downstream_rejected\", 422: \"downstream_rejected\"}.get(status)\n",
             "        if tool.name == \"delete_account\" and status == 409 and b\"account_already_closed\" in body:\n"
             "            return \"SUCCEEDED\", {\"account_id\": arguments[\"account_id\"], \"deleted\": True}\n"
             "        default = {404: \"not_found\", 409: \"downstream_rejected\", 422: \"downstream_rejected\"}.get(status)\n")

if __name__ == "__main__":
    serve(__file__)
