"""node_fetch_follows_redirects: in fetch mode, the global fetch follows redirects (its default).

Behaviour: the executor runs with CALLPROOF_NODE_HTTP=fetch (undici), and the fetch options no longer say
`redirect: 'manual'`, so fetch's default `redirect: 'follow'` applies: a 3xx is followed, the request (body, and the
X-Tenant-Id / X-Subject-Id / Idempotency-Key / X-Request-Id headers, which undici keeps across origins; a 303 turns
it into a GET) goes again to wherever `Location` points, and the followed answer is taken as the tool's answer.

Where it ships: Node >= 18 code that moves from node:http (or axios with maxRedirects: 0) to `fetch()`, whose
default is to follow up to 20 redirects.

Doc sentence it breaks: docs/protocol.md "3xx (a redirect: never follow it)"; docs/conformance-app.md "An executor
never follows a redirect; a request goes to the configured downstream only, and identity headers never leave it".
Compare with the unchanged executor in fetch mode (examples/buggy/variant_node_fetch.py's mode).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "{ method, headers, body, redirect: 'manual',"
NEW = "{ method, headers, body, // BUG: no redirect: 'manual': fetch follows 3xx by default"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW, http="fetch")
