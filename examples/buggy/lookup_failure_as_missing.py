#!/usr/bin/env python3
"""Bug: an ownership lookup that fails (5xx, lost connection, unreadable body) is read as "no such resource".

Where it ships: `resource = repo.find(order_id)` over a client that returns None on any error, then
`if resource is None or resource.tenant != caller.tenant: raise Forbidden`: the refusal looks safe, and the
uniform "missing or foreign" answer hides it. docs/errors.md dependency_unavailable: "the system of record
consulted for authorization ... could not be used" is `resource_lookup_failed`, retryable; `forbidden` is final
(resolution `stop`), so a caller gives up on an order it owns because a service blinked.

Expected check: expectations, in a scenario whose ownership lookup fails (a 503 or a dropped answer on
`GET /orders`) and pins dependency_unavailable.
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
        return None  # BUG: cannot reach the system of record -> "not found"
    finally:
        ctx.sent = False
    resource = None
    if 200 <= status < 300:
        try:
            resource = json.loads(body)
        except ValueError:
            resource = None
        if not isinstance(resource, dict) or not all(isinstance(resource.get(f), str)
                                                     for f in ("tenant_id", "owner_id")):
            return None  # BUG
    return resource  # BUG: any other status (5xx, 429, 3xx) is "not found" too


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
