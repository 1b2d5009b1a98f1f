#!/usr/bin/env python3
"""Bug: every decoded string (keys and values) is NFKC-normalised before validation.

A "sanitize input" step meant to defeat homoglyph tricks: after decoding, `unicodedata.normalize("NFKC", ...)` is
applied to every key and string value. Compatibility characters (fullwidth letters, ligatures such as U+FB01,
superscripts, the ellipsis U+2026, the Kelvin and Angstrom signs...) are silently rewritten, so the schema, the
downstream request, the canonical JSON and the approval hash all see other text than the model wrote.

Ships: Django's `AbstractBaseUser.normalize_username` habit carried over to every field; input-sanitising
middlewares.

Doc sentence: docs/protocol.md, "`{name}` is the argument's value, percent-encoded" and (approval) "it must equal
the hash of the call's decoded arguments"; the Caller line of errors.md invalid_json, "Never repair the text on
the model's behalf".
"""
import unicodedata

import correct
from correct import cp


def _nfkc(value):
    if isinstance(value, str):
        return unicodedata.normalize("NFKC", value)
    if isinstance(value, dict):
        return {_nfkc(key): _nfkc(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_nfkc(item) for item in value]
    return value


cp._nfkc = _nfkc
correct.changed_copy(cp, "decode", '''    if not isinstance(value, dict):
        raise Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
''', '''    value = _nfkc(value)  # sanitise: one spelling per character
    if not isinstance(value, dict):
        raise Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
''')

if __name__ == "__main__":
    correct.serve(__file__)
