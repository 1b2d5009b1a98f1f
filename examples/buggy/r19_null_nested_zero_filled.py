"""Blind round 19: a nested object that is null (or absent) comes back as a zero-valued object.

The change: the result shaper (`project`) builds the result the way a typed response struct would: a declared
member whose schema allows an object and that the body gives as `null` (or leaves out) is filled with the object's
zero value, built from its schema (`""` for a string, `0` for a number or integer, `false`, `[]`, `{}`), as Go's
encoding/json does with a non-pointer struct field, or a pydantic model with `default_factory`. A working export
poll, whose `result` is null, answers `{"account_id": "", "records": 0, "download_url": ""}`, which still passes
the output schema. Where it ships: executors generated from the output schema into typed structs.

Doc sentence it breaks: docs/conformance-app.md (Tasks): `result` "is non-null only when completed"; docs/checks.md
`result-matches-downstream`: "below the top level ... a nested object may leave members out, but every member it
keeps is the body's".
"""

from correct import cp, serve

_project = cp.project


def _zero(schema):
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types:
        return {name: _zero(sub) for name, sub in schema.get("properties", {}).items()}
    if "string" in types:
        return ""
    if "integer" in types or "number" in types:
        return 0
    if "boolean" in types:
        return False
    if "array" in types:
        return []
    return None


def project(tool, value):
    result = _project(tool, value)
    if isinstance(result, dict):
        for name, schema in tool.entry["output_schema"].get("properties", {}).items():
            types = schema.get("type")
            types = types if isinstance(types, list) else [types]
            if "object" in types and result.get(name) is None:
                result[name] = _zero(schema)
    return result


cp.project = project

if __name__ == "__main__":
    serve(__file__)
