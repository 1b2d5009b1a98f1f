"""Buggy executor: the retry budget is spent by every claim of an existing record.

Changed place: `Executor.claim` (examples/python/callproof_executor.py). The attempts counter is incremented at
the top of every claim of an existing record (an INCR before the state is read), so a duplicate answered
`operation_in_progress`, a replay and a reconciliation poll spend the budget like an execution; a retake no longer
adds its own increment, and the budget check is "more than 5 claims" (reported as the executions before it).
Where teams ship it: Redis-backed stores that `HINCRBY key attempts 1` first and decide afterwards.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "claim",
             ("""                snapshot = (record.fingerprint,""",
              """            elif state == "FAILED_RETRYABLE" and attempts >= MAX_ATTEMPTS:""",
              """                                        attempts=attempts), meta)""",
              """attempts=attempts + 1, lease=lease"""),
             ("""                record.attempts += 1  # BUG: every claim counts, not every execution
                snapshot = (record.fingerprint,""",
              """            elif state == "FAILED_RETRYABLE" and attempts > MAX_ATTEMPTS:  # this claim is counted already""",
              """                                        attempts=attempts - 1), meta)""",
              """attempts=attempts, lease=lease"""))

if __name__ == "__main__":
    serve(__file__)
