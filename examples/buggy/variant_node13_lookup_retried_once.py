"""Correct variant of the independent Node executor: the ownership lookup (downstream.resource, a GET) is sent once
more, within the call's deadline, when its answer brought nothing to read (connection refused, a 5xx, a connection
lost without an answer); the envelope reads the last answer.

Doc: protocol.md "Inside one call an executor may send a read again after an answer that brought nothing to read
(not sent, a 5xx, no answer, a redirect), within the call's deadline. A read is any `GET`: a read tool's request, the
ownership lookup of `downstream.resource`, a status query. The envelope then reads the last answer".
Expected: passes under --profile all.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "    const resp = await httpCall({ method: lr.method, path: lr.path, headers: identityHeaders, deadline });\n",
)
NEW = (
    "    let resp = await httpCall({ method: lr.method, path: lr.path, headers: identityHeaders, deadline });\n"
    "    if (((resp.kind === 'error' && !resp.timedOut) || (resp.kind === 'response' && resp.status >= 500)) && Date.now() < deadline) {\n"
    "      resp = await httpCall({ method: lr.method, path: lr.path, headers: identityHeaders, deadline });\n"
    "    }\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
