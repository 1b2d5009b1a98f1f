#!/usr/bin/env python3
"""Bug: every failure after decoding hands the call's arguments back in `details.arguments`, the x-sensitive
body of an email included.

Where it ships: `except ToolError as e: return error(e, details={"arguments": args})` in tool wrappers and agent
frameworks that return the failing call "to help the caller retry or reconcile it"; the model, the user and
every log that keeps the answer then hold what the user wrote in a field the schema marks private
(docs/errors.md: no failure repeats the value of an `x-sensitive` argument, in its message or its details).

Expected catch: no-secret-leak (downstream/failed_email_keeps_its_body_private).
"""

from correct import cp, serve

_run_decoded = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, *rest):
    try:
        envelope = _run_decoded(self, tool, arguments, *rest)
    except cp.Refusal as refusal:
        # the bug: the arguments, sensitive ones included, go back with the refusal
        refusal.details["arguments"] = arguments
        raise
    if envelope["ok"]:
        return envelope
    # the bug again, on a copy (a replayed failure shares its error with the store)
    error = dict(envelope["error"], details=dict(envelope["error"]["details"], arguments=arguments))
    return dict(envelope, error=error)


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
