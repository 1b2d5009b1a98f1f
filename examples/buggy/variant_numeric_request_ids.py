#!/usr/bin/env python3
"""Correct, written another way: `meta.request_id` is a string of digits longer than any 64-bit integer
(the process's start in nanoseconds, then a zero-padded counter, e.g. `"1764795000123456789000001"`), so a
reader that takes it for a number loses its last digits.

Where it ships: executors that use a database sequence or a Snowflake-style numeric id as their request id.

Permitted by docs/envelope.schema.json: `request_id` is any non-empty string; docs/protocol.md: `X-Request-Id`
is "the `meta.request_id` of the envelope this request serves".

Expected: passes every check under --profile all. A false-positive probe for request-id-propagated and
attribution by `X-Request-Id` (ids must be compared as strings).
"""

import time

from correct import cp, serve

STARTED_NS = time.time_ns()


def next_request_id(self):
    with self.lock:
        self.counter += 1
        return "%d%06d" % (STARTED_NS, self.counter)


cp.Executor.next_request_id = next_request_id

if __name__ == "__main__":
    serve(__file__)
