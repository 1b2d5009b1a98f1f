#!/usr/bin/env python3
"""Bug: every `\\uD800`-`\\uDFFF` escape in the raw text is refused as a lone surrogate, valid pairs included.

Where it ships: a lone-surrogate guard written as one regular expression over the text (`\\\\u[dD][89a-fA-F]`)
instead of a look at the decoded string, so an emoji that the model escaped as a pair (`"\\ud83d\\ude00"`, which
is how `json.dumps` with `ensure_ascii=True` writes it, the Python default) is refused as `invalid_json`.
docs/errors.md invalid_json: only *lone* surrogate escapes are refused; a pair is one valid character.

Expected checks: corpus-codes or expectations, if the suite sends a valid surrogate pair (likely missed if it
sends only lone ones).
"""

import re

from correct import cp, serve

_parse_raw = cp.parse_raw
_ANY_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def parse_raw(text):
    value = _parse_raw(text)
    match = _ANY_SURROGATE.search(text)
    if match:  # BUG: any surrogate escape, paired or not
        raise cp._invalid_json(text, match.start(), "lone_surrogate")
    return value


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
