#!/usr/bin/env python3
"""Correct, written another way: values in a query string are encoded the way form encoders write them
(`urllib.parse.quote_plus`: a space is `+`, a `+` is `%2B`); path values stay percent-encoded.

Where it ships: `requests.get(url, params=...)`, `urllib.parse.urlencode`, Java's `URLEncoder`, PHP's
`http_build_query`, Go's `url.Values.Encode`: most HTTP clients build query strings this way.

Permitted by docs/protocol.md? "`{name}` is the argument's value, percent-encoded": `+` for a space is the
application/x-www-form-urlencoded reading of a query (WHATWG URL, and every server framework's query parser),
not RFC 3986 percent-encoding. A judgement call, probed here.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_EXPAND = cp.expand


def expand(template, arguments, key):
    path, mark, query = template.partition("?")
    method, target = ORIGINAL_EXPAND(path, arguments, key)
    if not mark:
        return method, target

    def value(name):
        found = key if name == "idempotency_key" else arguments.get(name)
        if found is None:
            return ""
        return found if isinstance(found, str) else cp.json.dumps(found)

    pairs = []
    for pair in query.split("&"):
        name, _, placeholder = pair.partition("=")
        filled = cp.re.fullmatch(r"\{([a-z_]+)\}", placeholder)
        pairs.append(name + "=" + (cp.urllib.parse.quote_plus(value(filled.group(1))) if filled else placeholder))
    return method, target + "?" + "&".join(pairs)


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
