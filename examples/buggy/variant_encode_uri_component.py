#!/usr/bin/env python3
"""Correct, written another way: path and query values are percent-encoded with JavaScript's
`encodeURIComponent` set, which leaves the letters, digits and `-_.!~*'()` as they are (the example also
encodes `!*'()`).

Where it ships: every JavaScript and TypeScript executor that builds URLs with `encodeURIComponent`, and
libraries copying its set.

Permitted by docs/protocol.md: "`{name}` is the argument's value, percent-encoded": the docs do not name a set
of characters to encode, and `!*'()` are sub-delimiters, allowed as data in a path segment and in a query
(RFC 3986 §3.3, §3.4).

Expected: passes every check under --profile all.
"""

from correct import cp, serve

SAFE = "-_.!~*'()"
REAL_PARSE = cp.urllib.parse


def quote(value, safe="/", **options):
    return REAL_PARSE.quote(value, safe=SAFE, **options)


class Parse:
    """The example's `urllib.parse` with `quote` swapped (the module itself stays untouched)."""

    def __getattr__(self, name):
        return quote if name == "quote" else getattr(REAL_PARSE, name)


class Urllib:
    parse = Parse()


cp.urllib = Urllib()

if __name__ == "__main__":
    serve(__file__)
