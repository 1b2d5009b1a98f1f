"""Correct variant: the projection walks the output schema, so a result's members come in schema order.

The change: `project` builds the result by going through the output schema's fields in the order the schema
lists them in `required` (strict-mode schemas list every property there, in declaration order; the catalog's
`properties` object reaches the executor with its members sorted), then any other declared property, and takes
each one the body has, instead of going through the body and keeping what the schema declares. The members and
values are the same; their order on the wire is the schema's (`refund_id, order_id, amount, status`), not the
downstream's (`amount, order_id, refund_id, status`).

Where it ships: projections written as "for each declared property, copy it if present" (pydantic's
`model_dump()` of a model built from the body, a generated struct's serializer): the output follows the model's
field order.

Doc sentences relied on: docs/checks.md `result-matches-downstream`: "at the top level, the result holds exactly
the members of the body that the output schema declares, no more and no fewer"; docs/protocol.md, Canonical JSON
and step 3: arguments "in any member order or spacing" are the same; RFC 8259: an object is an unordered
collection of members.
"""

from correct import cp, serve


def project(tool, value):
    """Keeps the members the output schema declares, in the schema's order."""
    if isinstance(value, dict) and tool.declared_out:
        schema = tool.entry["output_schema"]
        order = list(schema.get("required", []))
        order += [name for name in schema.get("properties", {}) if name not in order]
        return {name: value[name] for name in order if name in value}
    return value


cp.project = project

if __name__ == "__main__":
    serve(__file__)
