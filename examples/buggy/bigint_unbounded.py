#!/usr/bin/env python3
"""Bug: integer literals are kept as Python ints whatever their size, so an integer beyond 64 bits in an integer
field is refused for `maximum`/`minimum` instead of `type`.

Where it ships: any Python decoder (Python ints are unbounded) or a BigInt-aware JS parser; nobody thinks about the
64-bit range until another language reads the same text. docs/protocol.md: "integers beyond 64 bits are refused as
`type`"; docs/errors.md, schema_violation: "At one place a `type` violation comes first: `-0`, `1e30` or an
integer beyond 64 bits in an integer field is the wrong type before it is below a minimum or above a maximum."

Expected checks: only `details.keyword` differs, so corpus-details (a SHOULD) or an `expect` pinning the keyword.
Written blind in round 4 (examples/buggy/BLIND4.md).
"""

from correct import cp, serve


def _parse_int(text):
    if text == "-0":
        return -0.0
    # BUG: no 64-bit bound: an integer beyond 64 bits stays an integer.
    return int(text)


cp._parse_int = _parse_int

if __name__ == "__main__":
    serve(__file__)
