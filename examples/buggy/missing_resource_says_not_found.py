#!/usr/bin/env python3
"""Bug: a missing resource is refused with the same code and reason as a foreign one, but a different message.

Where it ships: a helpful "order ord_000 was not found" next to "you may not access this order": the code is
right, yet the message tells a probing model (or user) which identifiers exist in other tenants.

Expected catch: resource-refusal-uniform on auth/foreign_order_forbidden, which compares the two refusals byte
for byte with the ids blanked (missed while the checks compared codes and details only).
"""

from correct import cp, serve

ORIGINAL_LOOKUP = cp.Executor.lookup_resource


def lookup_resource(self, tool, arguments, ctx):
    resource = ORIGINAL_LOOKUP(self, tool, arguments, ctx)
    if resource is None:
        binding = tool.entry["resource"]
        raise cp.Refusal("forbidden", "%s %s was not found" % (binding["kind"], arguments[binding["argument"]]),
                         reason="resource_not_accessible")  # the bug: the message differs from a foreign one
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
