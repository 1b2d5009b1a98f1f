"""Bug: a downstream refusal that names `error.field` gets the caller's value of that argument added to its
details (`details.value`), to help the model repair it, even when the argument is x-sensitive.

Ships in: agent frameworks that enrich tool errors with the offending argument's value.
Breaks: docs/errors.md, "An argument marked `x-sensitive` stays private ... no failure repeats the value the
caller put there, or any part of it: not in `message`, not in `details`".
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if isinstance(result, cp.Refusal) and result.code == "business_rejected" and result.details.get("field") in arguments:
        result.details["value"] = arguments[result.details["field"]]
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
