"""Bug: now_ms() reads the monotonic clock ("never use wall time for timeouts"); leases stay consistent, but the
trusted context's expires_at_ms (Unix ms) are compared with uptime milliseconds and never pass.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
import time

from correct import cp, serve


def now_ms():
    # BUG(expiry_on_monotonic_clock): monotonic instead of time.time(); expires_at_ms are Unix ms
    return int(time.monotonic() * 1000)


cp.now_ms = now_ms

if __name__ == "__main__":
    serve(__file__)
