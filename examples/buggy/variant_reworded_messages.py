#!/usr/bin/env python3
"""Correct, written another way: every error message is worded differently from the example's, with other
punctuation (a trailing full stop, typographic quotes and a dash, i.e. non-ASCII text) and the tool's name.

Where it ships: each team writes its own sentences, often in the house style ("refund_order — “amount” is
above what can be refunded."), and they change between releases.

Permitted by docs/errors.md: "Only `message` and `details` vary from call to call." and "Match on `code` and
`details`, never on `message`. The message is a sentence for people; its wording may change in any release."
The message still holds no secret, trace, SQL, host name, path or downstream text, and is a function of the
code, the reason and the tool only, so a missing and a foreign resource get the same words ("A resource that
does not exist gets exactly the same answer, byte for byte, as one that belongs to someone else").

Expected: passes every check under --profile all. A false-positive probe for any check or expectation that
reads `message`, and for envelopes carrying non-ASCII text.
"""

from correct import cp, serve

ORIGINAL_FAIL = cp.fail

WORDS = {
    "invalid_json": "The model’s arguments aren’t strict JSON — please emit them again.",
    "invalid_arguments": "The arguments break a structural rule (size, depth, “duplicate keys” or shape).",
    "schema_violation": "The arguments don’t fit the tool’s input schema; see details.path.",
    "tool_not_found": "There’s no tool by that exact name.",
    "unauthorized": "Your sign-in isn’t valid any more: please sign in again.",
    "forbidden": "You’re not allowed to do that.",
    "approval_required": "A person has to approve exactly this operation first.",
    "business_rejected": "The request was declined by a business rule.",
    "idempotency_conflict": "That request id was already used with other arguments.",
    "operation_in_progress": "Still working on it — ask again in a moment.",
    "dependency_unavailable": "A service we depend on can’t be used right now; nothing was changed.",
    "rate_limited": "Too many requests right now — wait, then retry.",
    "timeout_not_started": "Out of time before starting; nothing was changed.",
    "timeout_unknown": "Out of time after sending: it may or may not have happened.",
    "output_invalid": "The tool answered something we can’t vouch for; it has been withheld.",
    "internal_error": "Something went wrong on our side.",
    "retry_budget_exhausted": "This request failed too many times; we’ve stopped retrying.",
}


def fail(refusal, meta):
    envelope = ORIGINAL_FAIL(refusal, meta)
    error = envelope["error"]
    error["message"] = "%s%s" % (WORDS[error["code"]], " (%s)" % error["details"]["reason"].replace("_", " ")
                                 if isinstance(error["details"].get("reason"), str) else "")
    return envelope


cp.fail = fail

if __name__ == "__main__":
    serve(__file__)
