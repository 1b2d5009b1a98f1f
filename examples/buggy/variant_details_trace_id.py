#!/usr/bin/env python3
"""Correct, written another way: every error's `details` carries `trace_id`, a fresh W3C trace id (32
lowercase hex digits) per answer, which the executor also writes to its logs.

Where it ships: executors instrumented with OpenTelemetry return the trace id of the failing call so that an
operator can find it (`details.trace_id`, Google's `ErrorInfo.metadata`, Stripe's `request_log_url`).

Permitted by docs/errors.md: "Only `message` and `details` vary from call to call.", "`details`: Machine-
readable facts; the keys each code uses are listed in docs/errors.md" (more members pass: round 1's
`variant_extra_details`), and a trace id is no secret, token, stack trace, SQL, host name, file path or
downstream answer. It is the same for a missing resource as for a foreign one: it tells nothing about either.

Expected: passes every check under --profile all. A probe for the checks that compare two refusals byte for
byte (`resource-refusal-uniform`, `task-refusal-uniform`).
"""

import uuid

from correct import cp, serve

ORIGINAL_BODY = cp.Refusal.body


def body(self):
    answer = ORIGINAL_BODY(self)
    answer["details"] = dict(answer["details"], trace_id=uuid.uuid4().hex)
    return answer


cp.Refusal.body = body

if __name__ == "__main__":
    serve(__file__)
