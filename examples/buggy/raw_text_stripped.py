"""Bug: the raw argument text is stripped before it is decoded.

A wrapper of `parse_raw`: `text.strip()` first, as nearly every "parse the model's JSON" helper does. Python's
`str.strip()` removes far more than the four whitespace characters RFC 8259 allows (space, tab, LF, CR): form
feed, vertical tab, the separators U+001C..U+001F, NBSP, U+0085, U+2028/U+2029, the ideographic space. Such
characters at either end of the text are accepted instead of refused as invalid_json, and every error position
after leading whitespace is reported shifted (line, column and offset count from the stripped text).

Doc sentence broken: docs/errors.md invalid_json "the raw argument text is not exactly one JSON value under
RFC 8259. There is no leniency"; "`line` and `column` (1-based, in bytes) and `offset` (0-based byte) of the
offending byte".

Where it ships: LLM output parsers and agent frameworks (`json.loads(text.strip())`, output parsers that trim
before parsing), MCP servers that normalise tool arguments.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve

original_parse_raw = cp.parse_raw


def parse_raw(text):
    return original_parse_raw(text.strip())  # BUG: strips whitespace JSON does not allow, shifts positions


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
