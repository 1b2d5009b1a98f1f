"""node_error_body_abort_as_lost: a response body cut short or over the limit is a lost answer, whatever the status.

Behaviour: the HTTP client treats a response body that breaks off (`aborted` / `error` on the response) or runs over
the 1 MiB limit (`req.destroy()`) as a failed request: it rejects with Lost, as for a connection lost after sending.
For a 2xx nothing changes (timeout_unknown / no_answer either way), but a 503, 429, 409 or 422 whose body is cut
short or too long is now answered timeout_unknown (side effects) or dependency_unavailable no_answer (reads) instead
of by its status line.

Where it ships: Node HTTP helpers with `if (size > MAX) { req.destroy(); reject(new Error('response too large')) }`
and fetch wrappers whose `await res.json()` failure lands in the same catch as the network error.

Doc sentence it breaks: docs/errors.md, timeout_unknown: "Any other status line is a definite answer even when its
body is over the limit or broken off: the body is dropped and the status decides (a 503 stays
dependency_unavailable, a 422 business_rejected)".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = ("        let over = false;\n"
       "        response.on('data', (chunk) => {\n"
       "          size += chunk.length;\n"
       "          if (size > MAX_BODY_BYTES) over = true;\n"
       "          else chunks.push(chunk);\n"
       "        });\n"
       "        response.on('error', () => finish(resolve, { status: response.statusCode, headers: response.headers,\n"
       "          body: null, whole: false }));\n"
       "        response.on('aborted', () => finish(resolve, { status: response.statusCode, headers: response.headers,\n"
       "          body: null, whole: false }));\n"
       "        response.on('end', () => finish(resolve, { status: response.statusCode, headers: response.headers,\n"
       "          body: over ? null : Buffer.concat(chunks), whole: !over }));\n")
# BUG: a cut or oversized body rejects with Lost instead of resolving with the status line.
NEW = ("        response.on('data', (chunk) => {\n"
       "          size += chunk.length;\n"
       "          if (size > MAX_BODY_BYTES) {\n"
       "            finish(reject, new Lost('response body over the limit'));\n"
       "            request.destroy();\n"
       "          } else chunks.push(chunk);\n"
       "        });\n"
       "        response.on('error', (error) => finish(reject, new Lost(error.code)));\n"
       "        response.on('aborted', () => finish(reject, new Lost('aborted')));\n"
       "        response.on('end', () => finish(resolve, { status: response.statusCode, headers: response.headers,\n"
       "          body: Buffer.concat(chunks), whole: true }));\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
