"""Correct variant of the independent Node executor: a GET that brought nothing to read is sent again.

What it does differently: every GET the executor sends (the ownership lookup, a read tool's request, a status
query, a task poll's read) goes through a wrapper that sends it again, at most twice more and 50 ms apart, while
more than 100 ms of the call's deadline is left, when the answer brought nothing to read: the connection was
refused (not sent), it broke after sending (no answer), or the answer was a 5xx or a 3xx. The call then reads the
last answer, exactly as the unchanged executor reads its only one. A GET that timed out at the deadline is not
sent again (no time left), and side-effecting requests (POST, PUT, DELETE) are never sent again.

Where it ships: retry middleware for idempotent reads: axios-retry and got's default retry on GET, urllib3's
`Retry` (which retries idempotent methods), Polly policies around HTTP GETs.

Doc relied on: docs/protocol.md, The conformance app's HTTP contract: "Inside one call an executor may send a read
again after an answer that brought nothing to read (not sent, a 5xx, no answer, a redirect), within the call's
deadline. A read is any `GET`: a read tool's request, the ownership lookup of `downstream.resource`, a status
query. The envelope then reads the last answer ... It never sends a request with side effects a second time by
itself". Also docs/conformance-app.md: "A call may send a read (any `GET`: a read tool's request, the ownership
lookup, a status query) again within its deadline when the answer brought nothing to read (it changes nothing)".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_node  # noqa: E402

exec_node(
    __file__, "executor.mjs",
    """function httpCall({ method, path: p, headers, body, deadline }) {""",
    """async function httpCall(req) {
  let resp = await httpCallOnce(req);
  for (let again = 0; again < 2 && req.method === 'GET'; again++) {
    const nothing = resp.kind === 'error'
      ? !resp.timedOut
      : resp.status >= 500 || (resp.status >= 300 && resp.status < 400);
    if (!nothing || req.deadline - Date.now() <= 100) break;
    log('read again:', req.method, req.path, resp.kind === 'error' ? String(resp.code) : String(resp.status));
    await new Promise((done) => setTimeout(done, 50));
    resp = await httpCallOnce(req);
  }
  return resp;
}

function httpCallOnce({ method, path: p, headers, body, deadline }) {""",
)
