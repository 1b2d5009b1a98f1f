#!/usr/bin/env python3
"""Bug: a 5xx answer's message carries the downstream's status line and body, as `str(exception)` of an HTTP
client error would.

Where it ships: `except requests.HTTPError as e: return {"error": str(e) + e.response.text}` in tool wrappers,
so the model (and the user) sees the service's stack trace, SQL or internal host names.

Expected catch: no-secret-leak (downstream/leak_bait).
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
            return "FAILED_RETRYABLE", cp.Refusal("timeout_not_started", "the deadline passed before the "
                                                  "request was sent", reason="deadline_elapsed")
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
        # the bug: the HTTP error as the client library prints it, body included
        message = "%d Server Error for url: %s: %s" % (status, tool.downstream["invoke"],
                                                      body.decode("utf-8", "replace")[:500])
        return "FAILED_RETRYABLE", cp.Refusal("dependency_unavailable", message, reason="unavailable",
                                              downstream_status=status)
    default = {404: "not_found", 409: "downstream_rejected", 422: "downstream_rejected"}.get(status)
    refusal = cp.rejection(tool, body, default) if default else cp.Refusal(
        "business_rejected", "a business rule refused the request", reason="downstream_refused")
    refusal.details["downstream_status"] = status
    return "FAILED_FINAL", refusal


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
