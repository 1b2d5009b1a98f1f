#!/usr/bin/env python3
"""Bug: a 2xx whose body is not JSON is answered output_invalid (reason: unreadable) with a message that quotes
the start of the body.

Where it ships: parse-error handlers that return f"cannot parse response: {body[:200]!r}" to the caller.
docs/errors.md, on the message: "It never contains secrets, tokens, stack traces, SQL, host names, file paths or a
downstream's raw answer."

Expected checks: no-secret-leak, only if the cut 2xx body carries a marker (likely missed). Written blind in round 5
(examples/buggy/BLIND5.md).
"""

import json

from correct import cp, serve


def call_tool(self, tool, arguments, ctx, held):
    if ctx.remaining_ms() <= 0:
        return "FAILED_RETRYABLE", cp.Refusal("timeout_not_started", "the deadline passed before the request "
                                              "was sent", reason="deadline_elapsed")
    key = held[0] if held else None
    try:
        status, headers, body = self.downstream.send(tool.downstream["invoke"], arguments, ctx, key=key)
    except cp.NotSent:
        return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream service could not be "
                                              "reached; nothing was sent", reason="not_sent")
    except (cp.Lost, cp.TimedOut) as error:
        if not ctx.sent:
            return "FAILED_RETRYABLE", cp.Refusal("timeout_not_started", "the deadline passed before the request "
                                                  "was sent", reason="deadline_elapsed")
        if not tool.side_effect:
            return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream did not answer in "
                                                  "time; reading again is safe", reason="no_answer")
        reason = "deadline_elapsed" if isinstance(error, cp.TimedOut) else "connection_lost"
        return "UNKNOWN", cp.Refusal("timeout_unknown", "the request was sent and its outcome is unknown",
                                     reason=reason)
    if 200 <= status < 300:
        try:
            return "SUCCEEDED", cp.project(tool, json.loads(body))
        except ValueError:
            # BUG: the message quotes the start of the unreadable body, the downstream's raw answer.
            return "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's answer could not be read: %r"
                                              % body[:200], reason="unreadable", downstream_status=status)
    if status == 429:
        try:
            wait_ms = min(int(headers.get("retry-after", "").strip()), cp.MAX_RETRY_AFTER_S) * 1000
        except ValueError:
            wait_ms = 1000
        return "FAILED_RETRYABLE", cp.Refusal("rate_limited", "the downstream service is rate limiting; retry "
                                              "later", retry_after_ms=wait_ms)
    if 500 <= status < 600:
        return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream service is unavailable "
                                              "and did not apply the request", reason="unavailable",
                                              downstream_status=status)
    if 300 <= status < 400:
        # A redirect is an answer, never followed (http.client does not): the request arrived and nothing
        # says whether it was applied, so a side effect's outcome is unknown and a read may be repeated.
        if not tool.side_effect:
            return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", "the downstream answered outside its "
                                                  "contract; reading again is safe", reason="unexpected_answer",
                                                  downstream_status=status)
        return "UNKNOWN", cp.Refusal("timeout_unknown", "the downstream answered outside its contract after the "
                                     "request was sent; its outcome is unknown", reason="unexpected_answer",
                                     downstream_status=status)
    default = {404: "not_found", 409: "downstream_rejected", 422: "downstream_rejected"}.get(status)
    refusal = cp.rejection(tool, body, default) if default else cp.Refusal(
        "business_rejected", "a business rule refused the request", reason="downstream_refused")
    refusal.details["downstream_status"] = status
    return "FAILED_FINAL", refusal


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
