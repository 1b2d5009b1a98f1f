#!/usr/bin/env python3
"""Bug: argument values are put into the request path and query without percent-encoding, so a location like
`Oslo&units=fahrenheit` rewrites the query the downstream reads.

Where it ships: f-strings and `str.format` for URLs (`f"/weather?location={location}&units={units}"`), the
most common HTTP-tool bug in agent code: the model controls the value, so it controls the query.

Expected catch: nothing today unless a scenario's arguments hold `&`, `/`, `?`, `#`, `%` or spaces.
"""

from correct import cp, serve


def expand(template, arguments, key):
    method, _, path = template.partition(" ")
    values = {}
    for name, value in arguments.items():
        values[name] = "" if value is None else str(value)
    values["idempotency_key"] = key or ""
    return method, path.format(**values)  # the bug: no urllib.parse.quote


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
