"""Bug: status-query answers are memoised per idempotency key in a module-level TTL cache (30 s).

A retry that reconciles reuses what an earlier retry's status query answered (404 "not found", "pending") instead
of asking again, so "not found after the earlier attempt's deadline" may be an answer from before that deadline.
Ships as requests-cache / cachetools.TTLCache wrapped around a client's GET helper ("GETs are safe, cache them").
Breaks docs/protocol.md, Reconciliation: "After an unknown outcome, the next attempt of the same business request
first asks the tool's `downstream.status` query".
"""

from correct import changed_copy, cp, serve

cp.STATUS_CACHE = {}  # key -> (expires at, monotonic s; status; body)

changed_copy(cp.Executor, "reconcile",
             """        try:
            status, _, body = self.downstream.send(template, arguments, ctx, key=key)
        except (NotSent, Lost, TimedOut):
            return fail(failed, meta)
""",
             """        cached = STATUS_CACHE.get(key)
        if cached is not None and cached[0] > time.monotonic():
            status, body = cached[1], cached[2]
        else:
            try:
                status, _, body = self.downstream.send(template, arguments, ctx, key=key)
            except (NotSent, Lost, TimedOut):
                return fail(failed, meta)
            STATUS_CACHE[key] = (time.monotonic() + 30, status, body)
""")

if __name__ == "__main__":
    serve(__file__)
