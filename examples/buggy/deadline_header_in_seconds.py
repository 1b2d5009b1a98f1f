#!/usr/bin/env python3
"""Bug: X-Deadline-Ms carries the time left in seconds, so the downstream believes the caller gives it a
thousandth of the real budget and abandons work that would have been in time.

Where it ships: a `timeout` variable in seconds (what `requests` and `asyncio.wait_for` take) written into a
header named in milliseconds; unit mix-ups in deadline headers (grpc-timeout, X-Request-Timeout) are common.

Expected catch: expectations (deadline/slow_but_in_time: a 300 ms commit inside a 3 s budget must succeed).
"""

from correct import cp, serve

ORIGINAL_HEADERS = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    sent = ORIGINAL_HEADERS(self, method, ctx, key, remaining)
    sent["X-Deadline-Ms"] = str(remaining // 1000)  # the bug: seconds in a milliseconds header
    return sent


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
