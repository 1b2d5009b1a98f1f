"""Bug: invalid_json details quote the text around the offending byte (`near`), as many JSON error reporters do,
which repeats part of an x-sensitive argument (send_email's body) when the syntax error is in or near it.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
from correct import cp, serve


def _invalid_json(text, char_offset, hint=None):
    details = cp._position(text, char_offset)
    if hint:
        details["hint"] = hint
    # BUG(invalid_json_context_snippet): the raw text around the error goes into the refusal
    details["near"] = text[max(0, char_offset - 20):char_offset + 20]
    return cp.Refusal("invalid_json", "tool arguments are not valid JSON", **details)


cp._invalid_json = _invalid_json

if __name__ == "__main__":
    serve(__file__)
