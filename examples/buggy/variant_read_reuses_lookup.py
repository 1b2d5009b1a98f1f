"""Correct variant: a read tool whose resource lookup is the very request it would send (`get_order`,
`task_status`) sends it once: the lookup's 200 body is the tool's answer (projected and validated as usual).

docs/conformance-app.md: "A resource (order or account) is loaded with `GET /orders/{id}` / `GET /accounts/{id}`"
and the tools table: `get_order` ... `GET /orders/{order_id}`: the same request; no sentence asks for it twice.
"""

import json

import correct
from correct import cp

_lookup_resource = cp.Executor.lookup_resource
_call_tool = cp.Executor.call_tool


def lookup_resource(self, tool, arguments, ctx):
    resource = _lookup_resource(self, tool, arguments, ctx)
    if not tool.side_effect and tool.downstream.get("resource") == tool.downstream.get("invoke") \
            and resource is not None:
        ctx.looked_up = resource  # the read's own answer, already fetched
    return resource


def call_tool(self, tool, arguments, ctx, held):
    looked_up = getattr(ctx, "looked_up", None)
    if looked_up is not None:
        return "SUCCEEDED", cp.project(tool, json.loads(json.dumps(looked_up)))
    return _call_tool(self, tool, arguments, ctx, held)


cp.Executor.lookup_resource = lookup_resource
cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    correct.serve(__file__)
