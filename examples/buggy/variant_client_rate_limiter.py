"""VARIANT: a client-side token bucket paces every downstream request (50 requests/s, bursts of 5).

Behaviour: before a request leaves, it takes a token from a process-wide bucket (capacity 5, refilled at 50 per
second). A request that finds the bucket empty waits for a token, but never past its call's deadline: if the deadline
comes first it is not sent, exactly as if the deadline had passed before sending (the example's `TimedOut` before
the connection: `timeout_not_started` for a side effect, the lookup's own refusal for a lookup). `X-Deadline-Ms` is
computed after the wait, when the request is really sent.

Where it ships: `aiolimiter`/`ratelimit`/`pyrate-limiter` decorators on outbound HTTP clients, Envoy/Istio local
rate limits on a sidecar's egress, SDKs that pace calls to a metered API.

Relies on docs/protocol.md: only the deadline bounds a call ("One deadline per call: refuse to start after it, bound
every request by it"); back-pressure is allowed ("The harness sees slower answers, never refusals"), and
`X-Deadline-Ms` is "the milliseconds left of the call's budget when the request is sent".
"""

import threading
import time

from correct import cp, serve

RATE, CAPACITY = 50.0, 5.0
_bucket = {"tokens": CAPACITY, "at": time.monotonic()}
_bucket_lock = threading.Lock()
_send = cp.Downstream.send


def _take(deadline):
    """Takes a token, waiting at most until `deadline` (monotonic seconds); False when the deadline came first."""
    while True:
        with _bucket_lock:
            now = time.monotonic()
            _bucket["tokens"] = min(CAPACITY, _bucket["tokens"] + (now - _bucket["at"]) * RATE)
            _bucket["at"] = now
            if _bucket["tokens"] >= 1:
                _bucket["tokens"] -= 1
                return True
            wait = (1 - _bucket["tokens"]) / RATE
        if now + wait >= deadline:
            return False
        time.sleep(wait)


def send(self, template, arguments, ctx, key=None):
    # VARIANT: wait for a token (within the deadline) before the request leaves.
    if not _take(ctx.deadline):
        raise cp.TimedOut()
    return _send(self, template, arguments, ctx, key)


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
