#!/usr/bin/env python3
"""Bug: `and`/`or` precedence in the ownership rule lets a support_admin act across tenants.

Where it ships: the rule "same tenant, and (own resource or support role)" written without parentheses,
`tenant == tenant and owner == subject or is_support`, which Python (and JS, Java, Go) reads as
`(tenant and owner) or is_support`. Every test with a support_admin of the right tenant passes. docs/errors.md
forbidden: "a configured support role may act for other owners of its own tenant, never across tenants".

Expected check: tenant-isolation (an effect or a read of another tenant's order by a support_admin), in a
scenario where a support_admin of one tenant names another tenant's resource.
"""

from correct import cp, serve


def may_act_on(resource, auth):
    # BUG: parsed as (tenant and owner) or support_admin.
    return resource is not None and (resource["tenant_id"] == auth["tenant_id"] and
                                     resource["owner_id"] == auth["subject_id"] or
                                     cp.SUPPORT_ROLE in auth.get("roles", []))


cp.may_act_on = may_act_on

if __name__ == "__main__":
    serve(__file__)
