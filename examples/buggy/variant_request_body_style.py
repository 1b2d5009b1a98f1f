#!/usr/bin/env python3
"""Correct, written another way: `POST` and `PUT` bodies are the arguments serialized with the language's default
writer: a space after `,` and `:`, non-ASCII escaped as `\\uXXXX`, and `Content-Type: application/json;
charset=utf-8`.

Where it ships: `json.dumps(arguments)` with no options, `JSON.stringify` of a parsed object, most HTTP clients'
`json=` helpers.

Permitted by docs/protocol.md: "`POST` and `PUT` send the arguments as a JSON body": no serialization is
prescribed (canonical JSON is defined for the approval hash only).

Expected: passes every check under --profile all.
"""

import http.client
import json

from correct import cp, serve

ORIGINAL_REQUEST = http.client.HTTPConnection.request


def request(self, method, url, body=None, headers=None, **kwargs):
    if body is not None and method in ("POST", "PUT"):
        body = json.dumps(json.loads(body)).encode("ascii")
        headers = dict(headers or {}, **{"Content-Type": "application/json; charset=utf-8"})
    return ORIGINAL_REQUEST(self, method, url, body=body, headers=headers, **kwargs)


http.client.HTTPConnection.request = request

if __name__ == "__main__":
    serve(__file__)
