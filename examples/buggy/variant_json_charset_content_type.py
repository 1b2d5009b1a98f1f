"""VARIANT: JSON request bodies are labelled `Content-Type: application/json; charset=utf-8`.

Behaviour: a POST or PUT sends the same JSON body as the example, with the media type spelled with its charset
parameter (the example sends bare `application/json`). Every other header, and every GET and DELETE, is unchanged.

Where it ships: Java (Spring's `RestTemplate`/`WebClient` with `MediaType.APPLICATION_JSON_UTF8`, OkHttp's
`"application/json; charset=utf-8".toMediaType()`), .NET's `StringContent(json, Encoding.UTF8, "application/json")`
and `JsonContent`, axios and many SDK generators.

Relies on docs/protocol.md (HTTP contract): "`POST` and `PUT` send the arguments as a JSON body" (no media-type
spelling is prescribed; the body is UTF-8 JSON either way, and `charset=utf-8` only says so).
"""

from correct import cp, serve

_headers = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    found = _headers(self, method, ctx, key, remaining)
    if method in ("POST", "PUT"):
        return _Headers(found)
    return found


class _Headers(dict):
    """The example sets Content-Type after building the headers; this spelling wins."""

    def __setitem__(self, name, value):
        if name == "Content-Type" and value == "application/json":
            # VARIANT: the media type with its charset parameter.
            value = "application/json; charset=utf-8"
        dict.__setitem__(self, name, value)


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
