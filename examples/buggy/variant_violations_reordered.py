#!/usr/bin/env python3
"""Correct, written another way: a schema_violation keeps its first violation (`path`, `keyword`, and the
first entry of `violations`) but lists the others in reverse order, and `missing` and `unexpected` in reverse
order too.

Where it ships: validators that collect errors into a set or a map, or walk the schema rather than the
instance, and so list them in no particular order.

Permitted by docs/errors.md: "`path` (JSON pointer of the first violation ...) and `keyword` (the failing
schema keyword), plus `violations` (up to 10 by default, each with `path`, `keyword`, `message`) ...; `missing`
and `unexpected`, when there are any, list the JSON pointers of the members": the order of the list after the
first violation is not stated.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_DECODE = cp.decode


def decode(call, tools):
    try:
        return ORIGINAL_DECODE(call, tools)
    except cp.Refusal as refusal:
        details = refusal.details
        if refusal.code == "schema_violation":
            listed = details["violations"]
            details["violations"] = listed[:1] + listed[1:][::-1]
            for name in ("missing", "unexpected"):
                if name in details:
                    details[name] = details[name][::-1]
        raise


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
