#!/usr/bin/env python3
"""Correct, written another way: `operation_in_progress` always says `retry_after_ms: 1000`, a fixed polling
interval, instead of the time left of the holder's lease (or of the earlier attempt's deadline).

Where it ships: a constant poll interval is the common choice (Stripe-style "try again in a second").

Permitted by docs/errors.md, operation_in_progress: "**Details:** `retry_after_ms` (always)" with no value
prescribed, and the resolution `poll`: "Ask again with the same business request id after
`details.retry_after_ms`". Unlike rate_limited (whose value must be the downstream's Retry-After), nothing ties
this one to a clock.

Expected: passes every check under --profile all.
"""

from correct import cp, serve


def in_progress(retry_after_ms):
    return cp.Refusal("operation_in_progress", "another attempt of this business request is still in progress",
                      retry_after_ms=1000)


cp.in_progress = in_progress

if __name__ == "__main__":
    serve(__file__)
