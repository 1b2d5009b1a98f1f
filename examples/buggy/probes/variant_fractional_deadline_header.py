#!/usr/bin/env python3
"""Written another way, and a judgement call: `X-Deadline-Ms` carries the time left with its fraction of a
millisecond ("2987.431"), as computed from a high-resolution clock, instead of a whole number.

Where it ships: JavaScript executors (`deadline - performance.now()` is a float, and `String()` of it has
decimals), and any language whose monotonic clock is read as a float of milliseconds.

Permitted? docs/protocol.md: "`X-Deadline-Ms` | the milliseconds left of the call's budget when the request is
sent" (the same in docs/conformance-app.md). Neither page says the value is an integer, rounded, or how it is
written; HTTP gives no number format either.

Expected: if the harness reads the header as an integer only, `deadline-propagated` fails ("carries no usable
X-Deadline-Ms") on every scenario, and the mocked downstream may not honour the deadline. The report says
whether the docs or the check should change.
"""

import time

import os
import sys

# A probe, kept out of examples/buggy (and its manifest) while it fails today: correct.py is one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from correct import cp, serve  # noqa: E402

ORIGINAL_HEADERS = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    spelled = ORIGINAL_HEADERS(self, method, ctx, key, remaining)
    exact = max(0.0, (ctx.deadline - time.monotonic()) * 1000)
    spelled["X-Deadline-Ms"] = "%.3f" % exact
    return spelled


cp.Downstream.headers = headers

if __name__ == "__main__":
    serve(__file__)
