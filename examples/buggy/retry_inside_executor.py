#!/usr/bin/env python3
"""Bug: the executor's HTTP client retries by itself, up to 3 times, on a lost connection and on 5xx, for every
method; a POST whose answer was lost is sent again.

Where it ships: `urllib3.Retry(total=3, status_forcelist=[500, 502, 503, 504], allowed_methods=None)` mounted
on a requests Session, or tenacity's `@retry` around the tool call with "retry on any exception"; the retries
are invisible to the idempotency layer above.

Expected catch: single-effect, reconcile-before-resend and expectations
(idempotency/duplicate_refund_after_lost_response, idempotency/retryable_failure_same_key).
"""

import time

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send
RETRIES = 3


def send(self, template, arguments, ctx, key=None):
    for attempt in range(RETRIES + 1):
        try:
            status, headers, body = ORIGINAL_SEND(self, template, arguments, ctx, key)
        except (cp.NotSent, cp.Lost):
            if attempt == RETRIES:
                raise
        else:
            if status < 500 or attempt == RETRIES:
                return status, headers, body
        time.sleep(0.05 * 2 ** attempt)  # the bug: a resend the idempotency layer never sees
    raise AssertionError("unreachable")


cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
