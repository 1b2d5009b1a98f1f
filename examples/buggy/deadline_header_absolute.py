"""Bug: X-Deadline-Ms carries the absolute deadline in Unix ms instead of the milliseconds left."""
from correct import cp, changed_copy, serve

changed_copy(cp.Downstream, "headers",
             '"X-Deadline-Ms": str(remaining)',
             '"X-Deadline-Ms": str(now_ms() + remaining)')

if __name__ == "__main__":
    serve(__file__)
