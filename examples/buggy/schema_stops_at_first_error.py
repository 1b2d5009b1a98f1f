"""Bug: schema validation stops at the first error, as ajv does by default (`allErrors: false`), so a call with
three members missing hears of one, and `missing`, `unexpected` and `violations` name only the first.

The model repairs one member per round trip. docs/errors.md: `missing` and `unexpected` "list the JSON pointers of
the members that `required` found missing and that `additionalProperties` did not allow".
"""
from correct import cp, serve

_all_violations = cp._violations


def _first_violation_only(validator, value):
    # BUG(schema_stops_at_first_error): the first error and its first member only
    violations = _all_violations(validator, value)[:1]
    for violation in violations:
        violation["members"] = violation["members"][:1]
    return violations


cp._violations = _first_violation_only

if __name__ == "__main__":
    serve(__file__)
