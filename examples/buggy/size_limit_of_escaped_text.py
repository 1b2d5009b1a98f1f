#!/usr/bin/env python3
"""Bug: the 1 MiB argument limit is measured on the text as json.dumps writes it, with ASCII escapes, so text
under the limit is refused as too large (a euro sign counts 6 bytes, a quote 2).

Where it ships: size guards written as `len(json.dumps(arguments))`, in frameworks that re-serialise the
arguments before they log or forward them; `ensure_ascii` is on by default.

Expected catch: corpus-codes on decode/malformed_corpus, whose cases exactly_one_mebibyte_is_not_too_large and
multibyte_just_under_one_mebibyte_is_not_too_large are within the limit and must be refused for their reason's
maxLength, not as too_large.
"""

import json

from correct import cp, serve


def utf8_size(text):
    return len(json.dumps(text)) - 2  # the bug: the escaped form, not the UTF-8 bytes of the text itself


cp.utf8_size = utf8_size

if __name__ == "__main__":
    serve(__file__)
