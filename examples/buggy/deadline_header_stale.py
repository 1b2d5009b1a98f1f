"""Buggy executor: X-Deadline-Ms is computed once per call and reused on every later request of that call.

Behaviour: the first downstream request of a call (usually the ownership lookup) fixes the call's header set,
X-Deadline-Ms included; the tool's request and any status query sent after it carry the same X-Deadline-Ms,
however long the lookup took. (The socket timeout still uses the real remaining time.)

Where it ships: a per-call `requests.Session()` whose `session.headers.update({...})` is done once when the call
starts (deadline, identity, request id), with only the Idempotency-Key added per request.

Doc sentence it breaks: docs/protocol.md, "`X-Deadline-Ms` | the milliseconds left of the call's budget when the
request is sent"; docs/conformance-app.md, "One deadline per call ... bound every request by it". A downstream
told more time than the caller has left commits work the executor already gave up on.
"""

from correct import cp, serve

_headers = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    built = _headers(self, method, ctx, key, remaining)
    # BUG: the session's deadline header is set on the call's first request and never refreshed.
    fixed = getattr(ctx, "deadline_header", None)
    if fixed is None:
        ctx.deadline_header = built["X-Deadline-Ms"]
    else:
        built["X-Deadline-Ms"] = fixed
    return built


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
