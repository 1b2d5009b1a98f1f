#!/usr/bin/env python3
"""Bug: a float literal beyond a double (`1e400`) becomes `inf` instead of `invalid_json`.

The example's `_parse_float` hook refuses an infinite result as `number_out_of_range`; this copy returns
`float(text)` as Python's default `parse_float` does. The `parse_constant` hook still refuses the spellings
`Infinity` and `NaN`, so the author believed infinities were covered; an overflowing exponent slips through as
`inf` and is then refused by the schema (`schema_violation`, `type`) instead of as invalid JSON.

Ships: `json.loads` defaults (and JavaScript's `JSON.parse`, which reads `1e400` as `Infinity`).

Doc sentence: docs/errors.md, invalid_json: "numbers that do not fit a double (`1e400`) ... are all refused", with
the hint `number_out_of_range`.
"""
import correct
from correct import cp

correct.changed_copy(cp, "_parse_float", '''    if value in (float("inf"), float("-inf")):
        raise _OutOfRange(text)
''', "")

if __name__ == "__main__":
    correct.serve(__file__)
