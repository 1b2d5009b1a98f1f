#!/usr/bin/env python3
"""Bug: the 1 MiB argument limit is measured in characters, so multibyte text up to 4 MiB gets through.

Where it ships: `len(text) > MAX` on a Python `str` (or JavaScript's `string.length`, in UTF-16 units) where
the limit is specified in bytes; every request-size guard written after decoding the body.

Expected catch: corpus-codes on decode/malformed_corpus, whose case
multibyte_string_over_one_mebibyte_in_bytes_only is 1.2 MB of UTF-8 in 400,000 characters.
"""

from correct import cp, serve


def utf8_size(text):
    return len(text)  # the bug: characters, not UTF-8 bytes


cp.utf8_size = utf8_size

if __name__ == "__main__":
    serve(__file__)
