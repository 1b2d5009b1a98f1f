#!/usr/bin/env python3
"""Bug: truncated argument text is repaired (open strings and brackets closed, a trailing comma dropped) and used.

Where it ships: LangChain's `parse_partial_json` and the `json_repair` package, used by agent frameworks to
"recover" from models that stop mid-call (max_tokens); the repaired arguments then execute.

Expected catch: expectations (decode/truncated_arguments: invalid_json expected, schema_violation answered),
corpus-codes and malformed-input-refused (decode/malformed_corpus, where a truncation may leave a valid call).
"""

from correct import cp, serve

ORIGINAL_PARSE_RAW = cp.parse_raw


def _close(text):
    """Closes what a truncated JSON text left open, like parse_partial_json."""
    closers, in_string, escaped = [], False, False
    for char in text:
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
            closers.append("]" if char == "[" else "}")
        elif char in "]}" and closers:
            closers.pop()
    repaired = text + ('"' if in_string else "")
    repaired = repaired.rstrip()
    if repaired.endswith(","):
        repaired = repaired[:-1]
    if repaired.endswith(":"):
        repaired += "null"
    return repaired + "".join(reversed(closers))


def parse_raw(text):
    try:
        return ORIGINAL_PARSE_RAW(text)
    except cp.Refusal as refusal:
        if refusal.code != "invalid_json" or refusal.details.get("hint") != "truncated":
            raise
        return ORIGINAL_PARSE_RAW(_close(text))  # the bug: a guess at what the model meant is executed


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
