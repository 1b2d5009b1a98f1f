"""One module-level AbortController for every downstream request, aborted when a call's deadline passes: after the
first deadline every later request of the process fails at once (as not sent) and other calls' requests in flight
are torn down. Breaks docs/protocol.md 'One deadline per call ... bound every request by it'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    'function httpCall({ method, path: p, headers, body, deadline }) {',
    'method, path: fullPath, headers: h, agent: false,\n',
    "const timer = setTimeout(() => { timedOut = true; req.destroy(new Error('deadline')); }, remaining);",
)
NEW = (
    'const sharedAbort = new AbortController(); // BUG(shared_abort_controller)\nfunction httpCall({ method, path: p, headers, body, deadline }) {',
    'method, path: fullPath, headers: h, agent: false, signal: sharedAbort.signal, // BUG(shared_abort_controller)\n',
    'const timer = setTimeout(() => { timedOut = true; sharedAbort.abort(); }, remaining); // BUG(shared_abort_controller)',
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
