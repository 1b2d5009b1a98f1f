"""Bug: an empty (or whitespace-only) argument text is read as `{}`, as several agent
SDKs do for tools without parameters, instead of invalid_json at offset 0.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

_parse_raw = cp.parse_raw


def parse_raw(text):
    if not text.strip():  # BUG(empty_raw_as_empty_object): no arguments means no arguments
        return {}
    return _parse_raw(text)


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
