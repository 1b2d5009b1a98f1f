"""VARIANT: each schema violation's `message` is the JSON Schema library's own sentence.

Behaviour: `details.violations[].message` is `jsonschema`'s `error.message` (`'amount' is a required property`,
`'ord 1' does not match '^ord_[a-z0-9_]+$'`, `100.0 is not of type 'integer'`, `'xxxx...' is too long`) instead of
the example's fixed "does not satisfy `keyword`"; under a property marked `x-sensitive` it says "the value does not
satisfy `keyword`" instead, so the sensitive value is never repeated. Paths, keywords, order and every other detail
are the example's.

Where it ships: every Python service whose validation layer is `jsonschema` and passes `error.message` through
(FastAPI-style error lists, MCP SDK input validation, LangChain tool argument errors).

Relies on docs/errors.md: "Only `message` and `details` vary from call to call"; "Values of the other arguments may
be repeated" (only `x-sensitive` ones may not); schema_violation: "`violations` (up to 10 by default, each with
`path`, `keyword`, `message`)", "a schema violation names its path and keyword instead, and may say 'the value'".
"""

from correct import cp, serve


def _sensitive(validator, path):
    properties = validator.schema.get("properties", {}) if isinstance(validator.schema, dict) else {}
    return bool(path) and isinstance(properties.get(path[0]), dict) and properties[path[0]].get("x-sensitive") is True


def _violations(validator, value):
    errors = sorted(validator.iter_errors(value),
                    key=lambda error: (list(error.absolute_path), error.validator != "type"))
    out = []
    for error in errors:
        path = list(error.absolute_path)
        # VARIANT: the library's own message; a neutral one under an x-sensitive property.
        if _sensitive(validator, path):
            message = "the value does not satisfy `%s`" % error.validator
        else:
            message = error.message
        out.append({"path": cp._pointer(error.absolute_path), "keyword": str(error.validator), "message": message,
                    "members": cp._members(error)})
    return out


cp._violations = _violations

if __name__ == "__main__":
    serve(__file__)
