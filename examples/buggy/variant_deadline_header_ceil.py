"""Correct variant: X-Deadline-Ms is the time left rounded UP to a whole millisecond (ceil of the fractional
milliseconds), not truncated, as clients do that never want to send 0 while time remains.

Doc: protocol.md "`X-Deadline-Ms` | the milliseconds left of the call's budget when the request is sent, as a whole
number (a decimal one is read rounded down)". Expected: passes under --profile all.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import changed_copy, cp, serve  # noqa: E402

cp.math = math
changed_copy(cp.Downstream, "headers", '"X-Deadline-Ms": str(remaining)',
             '"X-Deadline-Ms": str(max(remaining, math.ceil((ctx.deadline - time.monotonic()) * 1000)))')

if __name__ == "__main__":
    serve(__file__)
