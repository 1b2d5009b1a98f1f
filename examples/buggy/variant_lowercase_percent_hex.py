#!/usr/bin/env python3
"""Correct, written another way: percent-encoded octets in paths and queries use lowercase hex digits
(`caf%c3%a9`, `a%20b`), as some encoders write them.

Where it ships: hand-written encoders (`"%%%02x" % byte`), older PHP and Perl URL helpers, some C libraries.

Permitted by docs/protocol.md: "`{name}` is the argument's value, percent-encoded", and RFC 3986 §2.1: "The
uppercase hexadecimal digits 'A' through 'F' are equivalent to the lowercase digits 'a' through 'f',
respectively." (it recommends uppercase; a URI with lowercase digits names the same resource, §6.2.2.1).

Expected: passes every check under --profile all.
"""

import re

from correct import cp, serve

ORIGINAL_EXPAND = cp.expand
ESCAPE = re.compile(r"%[0-9A-F]{2}")


def expand(template, arguments, key):
    method, target = ORIGINAL_EXPAND(template, arguments, key)
    return method, ESCAPE.sub(lambda match: match.group(0).lower(), target)


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
