#!/usr/bin/env python3
"""Correct, written another way: of the schema violations at one place, `required` comes before
`additionalProperties` (the example follows the schema's keyword order, where `additionalProperties` is written
first), so arguments that both miss a member and carry an unknown one answer `path: ""`, `keyword: "required"`.
Both lists (`missing`, `unexpected`) and every violation are still reported.

Where it ships: validators that check an object's `required` before its members (ajv, several Go and Java
libraries), whatever order the schema is written in.

Permitted by docs/errors.md (schema_violation): "`path` (JSON pointer of the first violation ...) and `keyword`
(the failing schema keyword)" and "At one place a `type` violation comes first": no other order at one place is
given.

Expected: passes every check under --profile all (measured 2026-12-03: no case both misses a member and
carries an unknown one).
"""

from correct import cp, serve

ORIGINAL_VIOLATIONS = cp._violations
RANK = {"type": 0, "required": 1}


def violations(validator, value):
    found = ORIGINAL_VIOLATIONS(validator, value)
    return sorted(found, key=lambda item: (item["path"].count("/"), item["path"], RANK.get(item["keyword"], 2)))


cp._violations = violations

if __name__ == "__main__":
    serve(__file__)
