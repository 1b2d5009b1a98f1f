"""Correct variant of the independent Node executor: a request whose connection is refused (nothing sent) is
tried once more 100 ms later, when the call's deadline leaves room, before the refusal is answered as not_sent.
It applies to every request, side-effecting ones too: a refused connection sent nothing.

docs/errors.md: "`not_sent` means the connection could not be made"; docs/protocol.md: "It never sends a request
with side effects a second time by itself" (a refused connect never sent it a first time).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = ("function httpCall({ method, path: p, headers, body, deadline }) {",)
NEW = ("""async function httpCall(opts) {
  let r = await httpCallOnce(opts);
  if (r.kind === 'error' && !r.sent && !r.timedOut && r.code === 'ECONNREFUSED' && opts.deadline - Date.now() > 200) {
    // nothing left this process: one more connection attempt, as urllib3's Retry(connect=1) makes
    await new Promise((done) => setTimeout(done, 100));
    r = await httpCallOnce(opts);
  }
  return r;
}

function httpCallOnce({ method, path: p, headers, body, deadline }) {""",)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
