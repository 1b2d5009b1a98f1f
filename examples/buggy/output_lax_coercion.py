#!/usr/bin/env python3
"""Bug: the downstream's success body is projected pydantic-style, in lax mode: numeric strings are coerced to
the integer or number the output schema wants, and "true"/"false" to booleans, before validation.

`project` (the example's projection onto the output schema's properties) is replaced by one that, like a pydantic
v2 model with `extra="ignore"` in its default lax mode, keeps the declared members and converts what it can:
`"30"` -> 30 for an `integer`, `"21.5"` -> 21.5 for a `number`, `"true"` -> True for a `boolean`, recursively in
declared nested objects. A downstream answer that breaks its contract that way is then valid and passed on as
`ok`.

Ships: pydantic output models (FastAPI `response_model`, agent frameworks that parse tool results into models).

Doc sentence: docs/protocol.md, "2xx, JSON body | applied | `ok`, the body projected onto the output schema's
properties, validated"; docs/errors.md output_invalid, "the tool reported success but its result does not match
the tool's output schema".
"""
import re

import correct
from correct import cp

_INT = re.compile(r"^[+-]?\d+$")
_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _types(schema):
    kind = schema.get("type")
    return kind if isinstance(kind, list) else [kind] if kind else []


def _coerce(schema, value):
    kinds = _types(schema)
    if isinstance(value, str) and "string" not in kinds:
        text = value.strip()
        if "integer" in kinds and _INT.match(text):
            return int(text)
        if "number" in kinds and _NUM.match(text):
            number = float(text)
            return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
        if "boolean" in kinds and text.lower() in ("true", "false"):
            return text.lower() == "true"
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        declared = schema["properties"]
        return {name: _coerce(declared[name], item) for name, item in value.items() if name in declared}
    return value


def project(tool, value):
    """Keeps the declared members, coercing what the schema's types allow (pydantic's lax mode)."""
    if isinstance(value, dict) and tool.declared_out:
        return _coerce(tool.entry["output_schema"], value)
    return value


cp.project = project

if __name__ == "__main__":
    correct.serve(__file__)
