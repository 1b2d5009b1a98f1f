#!/usr/bin/env python3
"""Bug: resource access is checked by tenant only, so any user may act on another user's order in their tenant.

Where it ships: multi-tenant SaaS code whose row-level security (or `WHERE tenant_id = $1`) is the only guard;
"tenant isolation" gets tested, per-owner access inside a tenant does not.

Expected catch: tenant-isolation and expectations (auth/other_owner_same_tenant).
"""

from correct import cp, serve


def may_act_on(resource, auth):
    return resource is not None and resource["tenant_id"] == auth["tenant_id"]  # the bug: the owner is not checked


cp.may_act_on = may_act_on

if __name__ == "__main__":
    serve(__file__)
