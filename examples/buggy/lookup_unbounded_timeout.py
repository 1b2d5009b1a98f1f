"""Buggy executor: the ownership lookup is sent without a timeout.

Behaviour: the resource lookup (`GET /orders/{id}`, `GET /accounts/{id}`, `GET /exports/{id}`) is sent with no
socket timeout, so a slow system of record holds the call past its deadline; only the tool's own request is bounded
by the call's deadline. (X-Deadline-Ms is still sent.)

Where it ships: an authorization helper written apart from the tool client, `requests.get(url, headers=...)`
without `timeout=` (requests' default is to wait forever).

Doc sentence it breaks: docs/protocol.md, "One deadline per call: refuse to start after it (timeout_not_started),
bound every request by it."
"""

import http.client

from correct import cp, serve


def send_unbounded(downstream, template, arguments, ctx):
    method, target = cp.expand(template, arguments, None)
    remaining = ctx.remaining_ms()
    if remaining <= 0:
        raise cp.TimedOut()
    headers = downstream.headers(method, ctx, None, remaining)
    # BUG: no timeout on the lookup: the auth helper waits as long as the system of record takes.
    connection = http.client.HTTPConnection(downstream.host, downstream.port)
    try:
        try:
            connection.connect()
        except OSError:
            raise cp.NotSent()
        ctx.sent = True
        try:
            connection.request(method, target, headers=headers)
            response = connection.getresponse()
            data = response.read(4 * 1024 * 1024)
        except (OSError, http.client.HTTPException):
            raise cp.Lost()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data
    finally:
        connection.close()


def lookup_resource(self, tool, arguments, ctx):
    if ctx.remaining_ms() <= 0:
        raise cp.Refusal("timeout_not_started", "the deadline passed before access could be checked",
                         reason="deadline_elapsed")
    try:
        status, _, body = send_unbounded(self.downstream, tool.downstream["resource"], arguments, ctx)
    except cp.TimedOut:
        raise cp.Refusal("timeout_not_started", "the deadline passed while checking access",
                         reason="deadline_elapsed")
    except (cp.NotSent, cp.Lost):
        raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                         reason="resource_lookup_failed")
    finally:
        ctx.sent = False
    resource = None
    if 200 <= status < 300:
        try:
            resource = cp.json.loads(body)
        except ValueError:
            resource = None
        if not isinstance(resource, dict) or not all(isinstance(resource.get(f), str)
                                                     for f in ("tenant_id", "owner_id")):
            raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                             reason="resource_lookup_failed")
    elif status != 404:
        raise cp.Refusal("dependency_unavailable", "the system of record could not be reached",
                         reason="resource_lookup_failed")
    return resource


cp.Executor.lookup_resource = lookup_resource

if __name__ == "__main__":
    serve(__file__)
