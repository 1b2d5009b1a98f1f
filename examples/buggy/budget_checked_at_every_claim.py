"""Bug: the retry budget is counted and checked at the top of every claim of an existing record, so status queries
of a pending operation (and duplicates answered `operation_in_progress`) spend it, and the sixth claim is refused
`retry_budget_exhausted` although the operation was sent once.

Where it ships: Redis-backed idempotency stores that `HINCRBY key attempts 1` and compare the result with the limit
before reading the record's state. Written for `idempotency/status_polls_spend_no_budget` after blind round 15's
`budget_counts_every_claim`, which counts the same way but checks only after a retryable failure
(examples/buggy/BLIND15.md).
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "claim",
             '''                snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                            record.deadline, record.outcome)''',
             '''                record.attempts += 1
                if record.attempts > MAX_ATTEMPTS and record.fingerprint == fingerprint:
                    return fail(Refusal("retry_budget_exhausted",
                                        "this business request failed too often; retries stop here",
                                        attempts=record.attempts - 1), meta)
                snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                            record.deadline, record.outcome)''')

if __name__ == "__main__":
    serve(__file__)
