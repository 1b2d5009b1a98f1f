#!/usr/bin/env python3
"""Correct, written another way: every error message ends with the time the executor answered, in UTC
(` (at 2026-12-04T02:41:07.123Z)`).

Where it ships: API gateways and support-minded services stamp their error messages with the time so that a
user's screenshot can be matched with the logs (Azure's "Timestamp: ...", many in-house platforms).

Permitted by docs/errors.md: "A failure carries one stable `code` and ... Only `message` and `details` vary
from call to call." and "The message is a sentence for people; its wording may change in any release. It never
contains secrets, tokens, stack traces, SQL, host names, file paths or a downstream's raw answer": a time is
none of those, and the same for a missing resource as for a foreign one.

Expected: passes every check under --profile all. A probe for the checks that compare two refusals byte for
byte (`resource-refusal-uniform`, `task-refusal-uniform`, `replay-same-result`).
"""

import datetime

from correct import cp, serve

ORIGINAL_BODY = cp.Refusal.body


def body(self):
    answer = ORIGINAL_BODY(self)
    now = datetime.datetime.now(datetime.timezone.utc)
    answer["message"] += " (at %s.%03dZ)" % (now.strftime("%Y-%m-%dT%H:%M:%S"), now.microsecond // 1000)
    return answer


cp.Refusal.body = body

if __name__ == "__main__":
    serve(__file__)
