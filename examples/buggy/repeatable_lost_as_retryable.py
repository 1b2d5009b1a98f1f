"""Bug: a repeatable write (set_preference's PUT, task_cancel's DELETE) whose
answer is lost or late is answered like a read: dependency_unavailable (no_answer), retryable, "since PUT and
DELETE are idempotent"; the record becomes FAILED_RETRYABLE instead of UNKNOWN.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

json, Refusal, NotSent, Lost, TimedOut = cp.json, cp.Refusal, cp.NotSent, cp.Lost, cp.TimedOut
project, rejection, MAX_RETRY_AFTER_S = cp.project, cp.rejection, cp.MAX_RETRY_AFTER_S


def call_tool(self, tool, arguments, ctx, held):
    if ctx.remaining_ms() <= 0:
        return "FAILED_RETRYABLE", Refusal("timeout_not_started", "the deadline passed before the request "
                                           "was sent", reason="deadline_elapsed")
    key = held[0] if held else None
    try:
        status, headers, body = self.downstream.send(tool.downstream["invoke"], arguments, ctx, key=key)
    except NotSent:
        return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream service could not be "
                                           "reached; nothing was sent", reason="not_sent")
    except (Lost, TimedOut) as error:
        if not ctx.sent:
            return "FAILED_RETRYABLE", Refusal("timeout_not_started", "the deadline passed before the request "
                                               "was sent", reason="deadline_elapsed")
        # BUG(repeatable_lost_as_retryable): a repeatable write (PUT, DELETE) is "safe to retry", like a read.
        if not tool.side_effect or tool.entry.get("repeatable"):
            return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream did not answer in "
                                               "time; reading again is safe", reason="no_answer")
        reason = "deadline_elapsed" if isinstance(error, TimedOut) else "connection_lost"
        return "UNKNOWN", Refusal("timeout_unknown", "the request was sent and its outcome is unknown",
                                  reason=reason)
    if 200 <= status < 300:
        try:
            return "SUCCEEDED", project(tool, json.loads(body))
        except ValueError:
            return "FAILED_FINAL", Refusal("output_invalid", "the tool's answer could not be read",
                                           reason="unreadable", downstream_status=status)
    if status == 429:
        try:
            wait_ms = min(int(headers.get("retry-after", "").strip()), MAX_RETRY_AFTER_S) * 1000
        except ValueError:
            wait_ms = 1000
        return "FAILED_RETRYABLE", Refusal("rate_limited", "the downstream service is rate limiting; retry "
                                           "later", retry_after_ms=wait_ms)
    if 500 <= status < 600:
        return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream service is unavailable "
                                           "and did not apply the request", reason="unavailable",
                                           downstream_status=status)
    if 300 <= status < 400:
        # A redirect is an answer, never followed (http.client does not): the request arrived and nothing
        # says whether it was applied, so a side effect's outcome is unknown and a read may be repeated.
        if not tool.side_effect:
            return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream answered outside its "
                                               "contract; reading again is safe", reason="unexpected_answer",
                                               downstream_status=status)
        return "UNKNOWN", Refusal("timeout_unknown", "the downstream answered outside its contract after the "
                                  "request was sent; its outcome is unknown", reason="unexpected_answer",
                                  downstream_status=status)
    default = {404: "not_found", 409: "downstream_rejected", 422: "downstream_rejected"}.get(status)
    refusal = rejection(tool, body, default) if default else Refusal(
        "business_rejected", "a business rule refused the request", reason="downstream_refused")
    refusal.details["downstream_status"] = status
    return "FAILED_FINAL", refusal


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
