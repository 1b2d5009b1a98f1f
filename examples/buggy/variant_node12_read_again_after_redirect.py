"""Correct variant of the independent Node executor: a read tool's request answered with a 3xx is sent once more
(the same request to the configured origin, never the redirect's target) while the call's deadline allows; the
envelope reads the last answer.

docs/protocol.md: "Inside one call an executor may send a read again after an answer that brought nothing to read
(not sent, a 5xx, no answer, a redirect), within the call's deadline."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = ("      resp = await httpCall({ method: invokeReq.method, path: invokeReq.path, headers: identityHeaders, deadline });\n    }\n",)
NEW = ("      resp = await httpCall({ method: invokeReq.method, path: invokeReq.path, headers: identityHeaders, deadline });\n"
       "      if (resp.kind === 'response' && resp.status >= 300 && resp.status < 400 && Date.now() < deadline) {\n"
       "        // a redirect brought nothing to read: read once more from the configured origin\n"
       "        resp = await httpCall({ method: invokeReq.method, path: invokeReq.path, headers: identityHeaders, deadline });\n"
       "      }\n"
       "    }\n",)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
