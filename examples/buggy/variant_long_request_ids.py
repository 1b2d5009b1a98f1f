#!/usr/bin/env python3
"""Correct, written another way: `meta.request_id` (and so `X-Request-Id`) is 400 characters long: a
hierarchical trace id (host, process, session, a UUID and a counter) padded with the span path.

Where it ships: executors that use a distributed-tracing id (W3C traceparent, AWS X-Ray, nested span paths) as
their request id.

Permitted by docs/envelope.schema.json: `request_id` is `{"type": "string", "minLength": 1}`, "The executor's
id for this execution", with no maximum; docs/protocol.md asks only that `X-Request-Id` be "the
`meta.request_id` of the envelope this request serves".

Expected: passes every check under --profile all. A false-positive probe for checks that shorten, compare or
blank request ids in messages and for the downstream's header handling.
"""

import uuid

from correct import cp, serve

PROCESS = uuid.uuid4().hex


def next_request_id(self):
    with self.lock:
        self.counter += 1
        counter = self.counter
    head = "exec.prod-eu-west-1.host-7f3a.%s.%s.%08d" % (PROCESS, uuid.uuid4().hex, counter)
    spans = "".join("/span-%02d" % index for index in range(60))
    return (head + spans)[:400]


cp.Executor.next_request_id = next_request_id

if __name__ == "__main__":
    serve(__file__)
