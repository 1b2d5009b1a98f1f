#!/usr/bin/env python3
"""Correct, written another way? The IN_PROGRESS lease runs ten seconds past the attempt's deadline (the
example: two), a generous margin for a slow record write.

Where it ships: executors that pick a lease "comfortably longer than any call" (SQS's visibility timeout,
a job queue's lock TTL set to a round number).

Permitted by docs/protocol.md? "An `IN_PROGRESS` record whose lease (deadline + 2 s) ran out is unknown, not
absent." gives the lease in parentheses; docs/errors.md says only "its lease has not expired". A judgement
call, probed here: a longer lease only ever matters for a holder that died or was stopped.

Expected: to be judged by the run.
"""

from correct import cp, serve

cp.LEASE_MARGIN_MS = 10000

if __name__ == "__main__":
    serve(__file__)
