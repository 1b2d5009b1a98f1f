"""Buggy executor: the record keeps the attempt's start time as "the earlier attempt's deadline".

Changed place: `Executor.claim`, the deadline stored on the record when it is created or retaken
(examples/python/callproof_executor.py). The lease is still deadline + 2 s, but the record's `deadline` is the time
the attempt was claimed, so after a lost answer a status query's `not_found` is at once taken as proof that nothing
happened and the request is sent again while the first may still land.
Where teams ship it: a record schema with `started_at` and `deadline_at` where the wrong one is read.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "claim",
             '''        lease = deadline_ms + LEASE_MARGIN_MS''',
             '''        lease = deadline_ms + LEASE_MARGIN_MS
        deadline_ms = now_ms()  # BUG: the record's "deadline" is when this attempt started''')

if __name__ == "__main__":
    serve(__file__)
