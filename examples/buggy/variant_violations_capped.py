#!/usr/bin/env python3
"""Correct, written another way: a schema_violation lists at most 3 violations (the example: 10), with
`violations_truncated` true when there were more.

Where it ships: executors that keep model-facing errors short to save context tokens.

Permitted by docs/errors.md: "`violations` (up to 10 by default, each with `path`, `keyword`, `message`) and
`violations_truncated`": ten is a default, and the truncation flag says when the list is cut.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

LIMIT = 3
ORIGINAL_DECODE = cp.decode


def decode(call, tools):
    try:
        return ORIGINAL_DECODE(call, tools)
    except cp.Refusal as refusal:
        details = refusal.details
        if refusal.code == "schema_violation" and len(details["violations"]) > LIMIT:
            details["violations"] = details["violations"][:LIMIT]
            details["violations_truncated"] = True
        raise


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
