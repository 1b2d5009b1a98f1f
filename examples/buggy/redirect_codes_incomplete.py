#!/usr/bin/env python3
"""Bug: only 301, 302 and 303 are recognised as redirects; a 307 or 308 falls through to the catch-all refusal.

Where it ships: hand-written redirect lists copied from HTTP/1.0-era helpers (before RFC 7538's 308, forgetting
307); the 307/308 answer becomes `business_rejected` (`downstream_refused`), recorded as final, "nothing applied".
docs/protocol.md, answer table: "3xx (a redirect: never follow it) | sent, unknown | tools with side effects:
`timeout_unknown` (`reason: unexpected_answer`), never retryable; reads: `dependency_unavailable`".

Expected checks: expectations on a 307/308 redirect scenario; failure-means-not-applied when the redirect came with
`commit = true`. Written blind in round 4 (examples/buggy/BLIND4.md).
"""

import json

from correct import cp, serve

REDIRECT_STATUSES = (301, 302, 303)


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
            return "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's answer could not be read",
                                              reason="unreadable", downstream_status=status)
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
    # BUG: 307 and 308 are not in the list; they fall through to the refusal below.
    if status in REDIRECT_STATUSES:
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
