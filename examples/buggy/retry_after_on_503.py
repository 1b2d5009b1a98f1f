"""Buggy executor: a 503 with Retry-After is answered rate_limited.

Changed place: `Executor.call_tool`, the 429 branch (examples/python/callproof_executor.py). RFC 9110 lets a 503
carry Retry-After, so the mapper treats "503 + Retry-After" like a 429: `rate_limited` with that wait, instead of
the contract's `dependency_unavailable` (reason `unavailable`) for every 5xx.
Where teams ship it: shared response mappers that "respect Retry-After on 429 and 503" (urllib3's
RETRY_AFTER_STATUS_CODES is 413, 429, 503).
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "call_tool",
             '''        if status == 429:''',
             '''        if status == 429 or (status == 503 and "retry-after" in headers):  # BUG''')

if __name__ == "__main__":
    serve(__file__)
