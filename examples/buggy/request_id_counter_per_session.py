"""Bug: request ids are "req_" + a prefix derived from the hello's session + a
counter, deterministic for log correlation. A restarted process (same session) counts from 1 again, so its request
ids (meta.request_id and X-Request-Id) repeat those of the process before it.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
import hashlib

from correct import cp, serve


_init = cp.Executor.__init__


def __init__(self, hello):
    _init(self, hello)
    # BUG(request_id_counter_per_session): the prefix is the session's, not this process's.
    self.prefix = hashlib.sha256(str(hello.get("session")).encode()).hexdigest()[:12]


cp.Executor.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
