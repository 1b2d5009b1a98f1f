#!/usr/bin/env python3
"""Bug: the nesting limit does not count the top-level object, so 65 levels of raw text are accepted.

Where it ships: a depth counter that starts at the arguments object ("level 0 is the call itself, the limit is
on what the model nests inside it"), or a parser configured with `max_depth=64` that counts only the containers
below the root. 64 levels pass either way and nobody writes a test at 65. docs/errors.md invalid_arguments:
"containers nest deeper than the limit (default 64)" is `too_deep`, checked before the schema; with the bug the
65-level text reaches the schema and is refused there, as `schema_violation`, or not at all.

Expected check: corpus-codes (a case nested exactly one level past the limit), corpus-details.
"""

from correct import cp, serve


def _too_deep_offset(text):
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            # BUG: the top-level object is level 0, so the 65th container passes.
            if depth - 1 > cp.MAX_DEPTH:
                return index
        elif char in "]}":
            depth -= 1
    return None


cp._too_deep_offset = _too_deep_offset

if __name__ == "__main__":
    serve(__file__)
