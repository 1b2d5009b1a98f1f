#!/usr/bin/env python3
"""Correct, written another way: a downstream answer is projected onto the output schema at every depth, not only
the top level: a nested object whose schema lists `properties` (task_status's `result`) keeps only those members,
then the whole is validated.

Where it ships: response mappers generated from the schema (pydantic models with `extra="ignore"`, serde structs
without `deny_unknown_fields`), which drop unknown members wherever they are.

Permitted by docs/protocol.md: "2xx, JSON body | applied | `ok`, the body projected onto the output schema's
properties, validated": the nested object's properties are the output schema's properties too.

Expected: passes every check under --profile all (measured 2026-12-03: no scenario sends a nested extra member).
"""

from correct import cp, serve


def project_value(schema, value):
    if isinstance(value, dict) and isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        declared = schema["properties"]
        return {name: project_value(declared[name], item) for name, item in value.items() if name in declared}
    return value


def project(tool, value):
    if tool.declared_out:
        return project_value(tool.entry["output_schema"], value)
    return value


cp.project = project

if __name__ == "__main__":
    serve(__file__)
