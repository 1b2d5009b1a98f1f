#!/usr/bin/env python3
"""Correct, written another way: every error message ends with the request id of its envelope.

Where it ships: "... (request req_7)" so a user can quote it to support; the id is the executor's own, already in
`meta.request_id`, and differs on every call.

Expected: passes every check under --profile all. A false-positive probe: checks that compare two refusals
(resource-refusal-uniform, task-refusal-uniform, replay-same-result) must not trip on a per-call id, and
no-secret-leak must not take the executor's own id for downstream text.
"""

from correct import cp, serve

ORIGINAL_FAIL = cp.fail


def fail(refusal, meta):
    envelope = ORIGINAL_FAIL(refusal, meta)
    if meta.get("request_id"):
        envelope["error"]["message"] += " (request %s)" % meta["request_id"]
    return envelope


cp.fail = fail

if __name__ == "__main__":
    serve(__file__)
