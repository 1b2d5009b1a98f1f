#!/usr/bin/env python3
"""Written another way, and a judgement call: `X-Deadline-Ms` carries the time left with its fraction of a
millisecond ("2987.431"), as computed from a high-resolution clock, instead of a whole number.

Where it ships: JavaScript executors (`deadline - performance.now()` is a float, and `String()` of it has
decimals), and any language whose monotonic clock is read as a float of milliseconds.

Permitted? docs/protocol.md: "`X-Deadline-Ms` | the milliseconds left of the call's budget when the request is
sent" (the same in docs/conformance-app.md). Neither page says the value is an integer, rounded, or how it is
written; HTTP gives no number format either.

Expected: passes every check under --profile all (X-Deadline-Ms is read rounded down since 2026-12-03; before,
`deadline-propagated` found no usable header and the mocked downstream ignored it).
"""

import time

from correct import cp, serve

ORIGINAL_HEADERS = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    spelled = ORIGINAL_HEADERS(self, method, ctx, key, remaining)
    exact = max(0.0, (ctx.deadline - time.monotonic()) * 1000)
    spelled["X-Deadline-Ms"] = "%.3f" % exact
    return spelled


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
