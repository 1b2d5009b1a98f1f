"""Buggy executor: a downstream 422 is answered `schema_violation` ("fix your arguments"), not `business_rejected`.

Behaviour: when the tool's request is answered 422 Unprocessable Entity, the executor answers
`schema_violation` (input, repair_arguments), pointing at the field the service named, instead of the final
`business_rejected`. The model is told its arguments were malformed and invited to "repair" a request the
service refused on business grounds (and, since input errors are not recorded as outcomes, its retry with changed
arguments is not an idempotency conflict).

Where it ships: API gateways and agent tool wrappers that map FastAPI/Pydantic-style 422 validation errors to the
model's "invalid arguments" error.

Doc sentence it breaks: docs/protocol.md, "404, 409, 422 {"error": {"reason", "field"}} | refused for good |
business_rejected; details.reason only if the catalog's rejection_reasons lists it".
"""

from correct import cp, serve

_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    # BUG: 422 is "Unprocessable Entity": the arguments were wrong, let the model repair them.
    if isinstance(result, cp.Refusal) and result.details.get("downstream_status") == 422:
        field = result.details.get("field")
        path = "/" + field if field else ""
        result = cp.Refusal("schema_violation", "the arguments do not match the tool's input schema", path=path,
                            keyword="downstream", violations=[{"path": path, "keyword": "downstream",
                                                               "message": "refused by the service"}],
                            violations_truncated=False)
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
