"""Buggy executor: response bodies are decoded with the Content-Type charset, ISO-8859-1 when none is named.

Behaviour: every downstream body is turned into text before it is parsed, with
`charset or "iso-8859-1"`; a JSON body sent as `application/json` without a charset parameter (the usual form:
JSON has no charset parameter) has its UTF-8 read as Latin-1, so every non-ASCII character of a result reaches the
model as mojibake ("Zürich" -> "ZÃ¼rich"), and the output schema still passes.

Where it ships: `body.decode(response.headers.get_content_charset() or "iso-8859-1")` in hand-written
http.client/urllib clients (the old HTTP/1.1 default for text), and `json.loads(r.text)` in requests-based code
whenever requests settles on ISO-8859-1.

Doc sentence it breaks: docs/protocol.md, "2xx, JSON body | applied | ok, the body projected onto the output
schema's properties, validated" (the body's values, not another text); JSON is UTF-8 (RFC 8259 section 8.1).
"""

import email.message

from correct import cp, serve

_send = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    status, headers, data = _send(self, template, arguments, ctx, key=key)
    message = email.message.Message()
    message["Content-Type"] = headers.get("content-type", "application/octet-stream")
    # BUG: no charset parameter means the HTTP/1.1 text default, ISO-8859-1 -- but JSON bodies are UTF-8.
    charset = message.get_content_charset() or "iso-8859-1"
    try:
        text = data.decode(charset)
    except (LookupError, UnicodeDecodeError):
        text = data.decode("iso-8859-1")
    return status, headers, text


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
