"""Correct variant: at most 4 downstream HTTP requests of the process are open at once (a blocking pool of 4, like
urllib3's PoolManager(maxsize=4, block=True)); a request waits for a slot within its call's deadline, and one whose
deadline passes while it waits is not sent (TimedOut before anything left: timeout_not_started).

Doc: protocol.md "5. One deadline per call: refuse to start after it (`timeout_not_started`), bound every request by
it." and "`X-Deadline-Ms` | the milliseconds left of the call's budget when the request is sent". Expected: passes.
"""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import cp, serve  # noqa: E402

SLOTS = threading.BoundedSemaphore(4)
_send = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    if not SLOTS.acquire(timeout=ctx.remaining_ms() / 1000):
        raise cp.TimedOut()
    try:
        return _send(self, template, arguments, ctx, key)
    finally:
        SLOTS.release()


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
