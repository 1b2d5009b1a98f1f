#!/usr/bin/env python3
"""Bug: the business rules run on the resource as soon as it is loaded, before ownership is checked (and before
the idempotency claim).

Where it ships: a loader that "validates the request against the order" right after fetching it; a refund of
150 on another tenant's order then answers amount_exceeds_refundable, telling the caller the order exists and
roughly what it is worth.

Expected catch: nothing today unless a scenario asks for more than the refundable amount of a foreign order.
"""

from correct import cp, serve

ORIGINAL_LOOKUP = cp.Executor.lookup_resource


def lookup_resource(self, tool, arguments, ctx):
    resource = ORIGINAL_LOOKUP(self, tool, arguments, ctx)
    self.check_business_rules(tool, arguments, resource)  # the bug: before may_act_on
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
