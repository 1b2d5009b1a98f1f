"""Buggy executor: query values are percent-encoded twice.

Behaviour: the template expansion percent-encodes each value, and the query string is then quoted again when the
URL is assembled, so every `%` the first pass wrote becomes `%25`: "New York" reaches the weather service as
`New%2520York`, which it decodes to "New%20York". Values without reserved characters are unaffected, so plain
ids and simple locations work and the bug hides.

Where it ships: code that pre-quotes values (`quote(v)`) and then hands the query to a layer that quotes again
(`requests.get(url, params={...})` with already-quoted values, `urlencode` over quoted values, httpx's URL
builder).

Doc sentence it breaks: docs/protocol.md, "`{name}` is the argument's value, percent-encoded" (once: the service
must read the value).
"""

from correct import cp, serve

_expand = cp.expand


def expand(template, arguments, key):
    method, target = _expand(template, arguments, key)
    path, sep, query = target.partition("?")
    if sep:
        # BUG: the query string is quoted again when the URL is assembled ("%" -> "%25").
        query = cp.urllib.parse.quote(query, safe="=&")
    return method, path + sep + query


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
