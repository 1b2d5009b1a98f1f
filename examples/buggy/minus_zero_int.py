#!/usr/bin/env python3
"""Bug: `-0` in raw argument text is read as the integer 0.

The example's `_parse_int` hook turns the literal `-0` into a float (not an integer literal); this copy drops that
special case, which is what Python's default `parse_int=int` does (`int("-0") == 0`). An integer field given `-0`
is then judged by its bounds (`minimum` for a refund's amount) instead of being refused as the wrong `type`, and a
field whose bounds allow 0 would take it as 0.

Ships: any Python executor that keeps `json.loads`'s default integer parsing (and parsers in other languages that
yield a plain integer for `-0`).

Doc sentence: docs/protocol.md, "an integer field accepts only integer literals, so `100.0`, `1e2`, `-0` and
integers beyond 64 bits are refused as `type`"; docs/errors.md, "At one place a `type` violation comes first:
`-0`, `1e30` ... is the wrong type before it is below a minimum".
"""
import correct
from correct import cp

correct.changed_copy(cp, "_parse_int", '''    if text == "-0":
        return -0.0  # not an unambiguous integer literal
''', "")

if __name__ == "__main__":
    correct.serve(__file__)
