#!/usr/bin/env python3
"""Correct, written another way: a refusal about a resource names the id the caller gave.

Where it ships: "order ord_999 is not accessible" reads better in a log than a bare sentence, and it says nothing
the caller did not send: a missing order and a foreign one get the same words around their own id, and so do an
unknown task handle and another tenant's.

Expected: passes every check under --profile all. A false-positive probe: resource-refusal-uniform and
task-refusal-uniform must compare refusals with the ids blanked, not byte for byte with the ids in.
"""

from correct import cp, serve

ORIGINAL_AUTHORIZE = cp.Executor.authorize


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    try:
        return ORIGINAL_AUTHORIZE(self, tool, arguments, arguments_hash, auth, ctx)
    except cp.Refusal as refusal:
        binding = tool.entry.get("resource")
        if binding and refusal.details.get("reason") == "resource_not_accessible":
            refusal.message = "%s %s is not accessible" % (binding["kind"], arguments[binding["argument"]])
        raise


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
