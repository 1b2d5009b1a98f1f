"""Bug: HTTP connections are pooled per worker thread and keep the timeout of the call that created them.

A later call on the same thread connects and waits for its answer with an earlier call's budget as the socket
timeout, not its own remaining time (the body reads still set their own). Ships as urllib3.PoolManager /
requests.Session adapters built once with the first request's timeout, per-thread HTTPConnection reuse.
Breaks docs/protocol.md "One deadline per call: refuse to start after it (`timeout_not_started`), bound every
request by it."
"""

import threading

from correct import changed_copy, cp, serve

cp.POOL = {}

changed_copy(cp.Downstream, "send",
             """        connection = http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000)
""",
             """        connection = POOL.setdefault(threading.get_ident(),
                                     http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000))
""")
cp.threading = threading

if __name__ == "__main__":
    serve(__file__)
