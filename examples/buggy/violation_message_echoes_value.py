#!/usr/bin/env python3
"""Bug: schema_violation messages are jsonschema's own, which repeat the offending value, sensitive fields too.

Where it ships: `violations = [{"path": ..., "message": e.message} for e in validator.iter_errors(args)]`, the
first thing anyone writes with jsonschema (ajv's `errorsText()` and pydantic's `str(ValidationError)` do the
same): `'not-an-address' is not a 'email'`, `'<the whole email body>' is too long`. docs/errors.md
schema_violation: "Messages never repeat the value of a field marked `x-sensitive`"; the message goes to the
model and into logs.

Expected check: no-secret-leak (if it looks for an `x-sensitive` argument's value in the answer), in a
scenario whose refused argument is a sensitive field; likely missed otherwise.
"""

from correct import cp, serve


def _violations(validator, value):
    errors = sorted(validator.iter_errors(value),
                    key=lambda error: (list(error.absolute_path), error.validator != "type"))
    # BUG: the validator's message, which quotes the instance.
    return [{"path": cp._pointer(error.absolute_path), "keyword": str(error.validator),
             "message": error.message, "members": cp._members(error)} for error in errors]


cp._violations = _violations

if __name__ == "__main__":
    serve(__file__)
