"""Correct variant (blind round 18, second batch): the independent Node executor sends POST and PUT bodies with
`Transfer-Encoding: chunked` (no `Content-Length`: the body is written, then the request ended), as streaming
clients do.

Permitted by: RFC 9112 §6.1/§7.1 (HTTP/1.1 request bodies may be chunked; a server must accept them) and
docs/protocol.md "`POST` and `PUT` send the arguments as a JSON body."
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

patch.exec_node(__file__, "executor.mjs", (
    "      h['Content-Length'] = String(payload.length);\n",
    "if (payload) req.end(payload); else req.end();",
), (
    "",
    "if (payload) { req.write(payload); req.end(); } else req.end();",
))
