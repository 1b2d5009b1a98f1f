#!/usr/bin/env python3
"""Bug: `operation_in_progress` says *when* to retry (the lease's expiry, Unix ms) where it should say how long
to wait.

In `claim`, a duplicate that finds the record held by a running attempt is answered
`in_progress(record_lease)` instead of `in_progress(record_lease - now)`: `details.retry_after_ms` becomes an
absolute time (about 1.7e12 ms, some 55 years), a "retry at" passed where "retry after" was meant.

Ships: the X-RateLimit-Reset (an epoch) vs Retry-After (a delta) confusion; lease records that store an absolute
expiry and hand it out as is.

Doc sentence: docs/errors.md, resolution `poll`: "Ask again with the same business request id after
`details.retry_after_ms`"; operation_in_progress, "Details: `retry_after_ms` (always)"; caller: "wait
`retry_after_ms` and ask again".
"""
import correct
from correct import cp

correct.changed_copy(cp.Executor, "claim", '''                return fail(in_progress(record_lease - now), meta)
''', '''                return fail(in_progress(record_lease), meta)
''')

if __name__ == "__main__":
    correct.serve(__file__)
