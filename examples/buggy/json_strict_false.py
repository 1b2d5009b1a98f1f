#!/usr/bin/env python3
"""Bug: the argument text is parsed with `json.loads(..., strict=False)`, so raw control characters (a literal
newline, tab or NUL) inside strings are accepted instead of refused as `invalid_json`.

Where it ships: the standard Stack Overflow answer to LLM output that fails with "Invalid control character at".
docs/errors.md, invalid_json: "There is no leniency: ... raw control characters inside strings ... are all
refused." (hint `control_character`).

Expected checks: corpus-codes, malformed-input-refused. Written blind in round 4 (examples/buggy/BLIND4.md).
"""

import json
import re

from correct import cp, serve


def parse_raw(text):
    size = cp.utf8_size(text)
    if size > cp.MAX_ARGUMENT_BYTES:
        raise cp.Refusal("invalid_arguments", "tool arguments are too large", reason="too_large",
                         limit_bytes=cp.MAX_ARGUMENT_BYTES, size_bytes=size)
    if text.startswith("\ufeff"):
        raise cp._invalid_json(text, 0, "byte_order_mark")
    deep_at = cp._too_deep_offset(text)
    # BUG: strict=False lets raw control characters through inside strings.
    hooks = dict(parse_constant=cp._reject_constant, parse_float=cp._parse_float, parse_int=cp._parse_int,
                 strict=False)
    try:
        value = json.loads(text, object_pairs_hook=cp._reject_duplicates, **hooks)
    except cp._Duplicate as duplicate:
        try:
            path = cp._find_duplicate(json.loads(text, object_pairs_hook=cp._mark_duplicates, **hooks))
        except Exception:  # a later syntax error: the top-level guess is the best we have
            path = (duplicate.key,)
        raise cp.Refusal("invalid_arguments", "tool arguments repeat a key", reason="duplicate_key",
                         path=cp._pointer(path or (duplicate.key,)))
    except cp._NonFinite:
        match = re.search(r"-?(NaN|Infinity)", text)
        raise cp._invalid_json(text, match.start() if match else 0, "non_finite_number")
    except cp._OutOfRange:
        match = re.search(r"\d[\d.]*[eE][+-]?\d+", text)
        raise cp._invalid_json(text, match.start() if match else 0, "number_out_of_range")
    except RecursionError:
        raise cp._too_deep(text, deep_at or 0)
    except json.JSONDecodeError as error:
        if deep_at is not None and deep_at < error.pos:
            raise cp._too_deep(text, deep_at)
        # docs/errors.md: a bad escape's offending byte is the character after the backslash (Python names the
        # backslash itself).
        at = error.pos + 1 if error.msg.startswith("Invalid \\escape") else error.pos
        raise cp._invalid_json(text, at, cp._syntax_hint(text, error))
    if deep_at is not None:
        raise cp._too_deep(text, deep_at)
    if cp._has_surrogate(value):
        match = cp._LONE_SURROGATE.search(text)
        raise cp._invalid_json(text, match.start() if match else 0, "lone_surrogate")
    return value


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
