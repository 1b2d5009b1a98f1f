#!/usr/bin/env python3
"""Bug: the "request sent" flag set by the ownership lookup is not cleared, so a call whose budget the lookup
spent answers timeout_unknown instead of timeout_not_started.

Where it ships: one `sent` flag per call, set by the HTTP layer when any request leaves, and reset after the
lookup in one code path only (here: not at all); the next deadline check then believes the tool's own request
went out. docs/errors.md timeout_not_started: "the lookup outlived it, the budget was spent by the time the tool
would be called" is `timeout_not_started` (retryable, nothing applied); timeout_unknown (not retryable) is only
for a request that was sent. The record then goes UNKNOWN and the retry reconciles first.

Expected check: expectations, in a scenario whose ownership lookup answers just before the deadline (a slow
`GET /orders` eating the budget) and pins timeout_not_started.
"""

import json

from correct import cp, serve


def lookup_resource(self, tool, arguments, ctx):
    if ctx.remaining_ms() <= 0:
        raise cp.Refusal("timeout_not_started", "the deadline passed before access could be checked",
                         reason="deadline_elapsed")
    try:
        status, _, body = self.downstream.send(tool.downstream["resource"], arguments, ctx)
    except cp.TimedOut:
        raise cp.Refusal("timeout_not_started", "the deadline passed while checking access",
                         reason="deadline_elapsed")
    except (cp.NotSent, cp.Lost):
        raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                         reason="resource_lookup_failed")
    # BUG: no `finally: ctx.sent = False`: the lookup's request counts as the tool's.
    resource = None
    if 200 <= status < 300:
        try:
            resource = json.loads(body)
        except ValueError:
            resource = None
        if not isinstance(resource, dict) or not all(isinstance(resource.get(f), str)
                                                     for f in ("tenant_id", "owner_id")):
            raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                             reason="resource_lookup_failed")
    elif status != 404:
        raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                         reason="resource_lookup_failed")
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
