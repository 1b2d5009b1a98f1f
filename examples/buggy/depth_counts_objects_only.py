"""Bug: the nesting limit counts objects only, not arrays.

`_too_deep_offset`, the pre-scan that finds where nesting first passes 64, counts `{` and `}` and ignores `[`
and `]` ("nesting" read as nested objects). Arrays nested 65 or a few hundred levels deep inside an object are
decoded (Python's own recursion limit is near 1000) and reach the schema, which refuses them for another reason
(schema_violation), or not at all where the schema allows them; deeper arrays still end in a RecursionError and
are refused too_deep, but without the position of the first level past the limit.

Doc sentence broken: docs/errors.md invalid_arguments "containers nest deeper than the limit (default 64)";
docs/protocol.md "duplicate keys at any depth and nesting deeper than 64 are `invalid_arguments`".

Where it ships: hand-written depth guards in front of a JSON parser (a brace counter), "max object depth"
options of parsers and validators that do not count arrays.

Written blind in round 8 (examples/buggy/BLIND8.md).
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
        elif char == "{":  # BUG: arrays are not counted
            depth += 1
            if depth > cp.MAX_DEPTH:
                return index
        elif char == "}":
            depth -= 1
    return None


cp._too_deep_offset = _too_deep_offset

if __name__ == "__main__":
    serve(__file__)
