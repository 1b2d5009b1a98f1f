"""Bug: the X-Request-Id correlation id lives in a threading.local, set lazily on first use and never reset.

A pool thread sends the request id of the first call it ran on every later call it runs, so a call's requests are
tied to another (earlier, already answered) call. Ships in log/trace-correlation helpers
(`getattr(local, "request_id", None) or ...`) in thread-pool servers whose per-request teardown is never called.
Breaks docs/protocol.md: "`X-Request-Id`: the `meta.request_id` of the envelope this request serves ...; each call
gets an id of its own, never shared with another call".
"""

import threading

from correct import changed_copy, cp, serve

cp._LOCAL = threading.local()

changed_copy(cp.Downstream, "headers",
             """            headers["X-Request-Id"] = ctx.request_id
""",
             """            _LOCAL.request_id = getattr(_LOCAL, "request_id", None) or ctx.request_id
            headers["X-Request-Id"] = _LOCAL.request_id
""")

if __name__ == "__main__":
    serve(__file__)
