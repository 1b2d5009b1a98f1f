#!/usr/bin/env python3
"""Bug: path and query values are formatted with `"%s" %` before percent-encoding, so a null argument goes out
as the text `None`: `get_weather` with `units: null` asks `/weather?location=Oslo&units=None`.

Where it ships: f-strings and `str()` on optional values in Python (`null`/`undefined` in JavaScript template
strings). docs/protocol.md: `{name}` is the argument's value, percent-encoded (an absent or null value is empty).

Expected catch: a get_weather call with `units: null` (expectations), if the weather service refuses an unknown
unit; otherwise only a check of what the downstream was asked.
"""

import re
import urllib.parse

from correct import cp, serve


def expand(template, arguments, key):
    method, _, path = template.partition(" ")

    def value_of(match):
        name = match.group(1)
        value = key if name == "idempotency_key" else arguments.get(name)
        text = value if isinstance(value, str) else "%s" % (value,)  # BUG: None becomes "None"
        return urllib.parse.quote(text, safe="-._~")

    return method, re.sub(r"\{([a-z_]+)\}", value_of, path)


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
