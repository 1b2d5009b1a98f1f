"""Correct variant: `business_rejected` from the downstream always carries `details.field`, `null` when none.

The change: a downstream refusal (a 404, 409 or 422 of the tool's request, or a `rejected` status answer) is
answered with `details.field` present in every case: the argument the downstream named, or `null` when it named
none (a 404 has no body naming a field; `account_already_closed` names none). The example leaves the member out.

Where it ships: executors whose error details are a fixed struct or dataclass (`field: Optional[str] = None`)
serialized without dropping `None` members (pydantic's `model_dump()` without `exclude_none`, serde without
`skip_serializing_if`).

Doc sentence relied on: docs/errors.md, business_rejected, Details: "`field`, the argument it concerns, when
there is one (when there is none, leave it out; `null` reads the same)".
"""

from correct import cp, serve

_rejection = cp.rejection


def rejection(tool, body, default_reason):
    refusal = _rejection(tool, body, default_reason)
    refusal.details.setdefault("field", None)
    return refusal


cp.rejection = rejection

if __name__ == "__main__":
    serve(__file__)
