"""The independent Python executor with one legitimate freedom: it with every `message`
reworded (same meaning, nothing secret).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''MESSAGES = {
    "invalid_json": "The argument text is not valid JSON.",
    "invalid_arguments": "The arguments break a structural rule.",
    "schema_violation": "The arguments do not match the tool's input schema.",
    "tool_not_found": "No tool has this name.",
    "unauthorized": "The caller's identity is not valid.",
    "forbidden": "The caller may not do this.",
    "approval_required": "This operation needs the user's approval of these exact arguments.",
    "business_rejected": "The request was refused by a business rule.",
    "idempotency_conflict": "This business request was already made with other arguments.",
    "operation_in_progress": "This operation is still in progress; ask again later.",
    "dependency_unavailable": "A service the tool needs could not be used; nothing was applied.",
    "rate_limited": "The service is busy; nothing was applied. Retry later.",
    "timeout_not_started": "The time budget ran out before the operation started.",
    "timeout_unknown": "The outcome of the operation is unknown; it will be reconciled on retry.",
    "output_invalid": "The tool's result could not be validated and is withheld.",
    "internal_error": "The executor failed internally.",
    "retry_budget_exhausted": "This operation failed too many times; stop retrying.",
}'''
NEW = '''MESSAGES = {
    "invalid_json": "Could not parse the tool arguments: they must be one strict JSON value.",
    "invalid_arguments": "The tool arguments are JSON but are not shaped as allowed (size, depth, keys, top level).",
    "schema_violation": "One or more arguments do not fit the tool's declared parameters.",
    "tool_not_found": "There is no tool by that name. Please refresh the tool list.",
    "unauthorized": "Please sign in again: the current session could not be accepted.",
    "forbidden": "You are not permitted to perform this action.",
    "approval_required": "A person has to approve exactly this action before it can run.",
    "business_rejected": "This request cannot be carried out under the current business rules.",
    "idempotency_conflict": "That request id was already used for a different request.",
    "operation_in_progress": "Still working on this request. Please check back shortly.",
    "dependency_unavailable": "A required service is unavailable right now. Nothing was changed; you can try again.",
    "rate_limited": "Too many requests right now. Nothing was changed; wait a moment and try again.",
    "timeout_not_started": "Ran out of time before starting. Nothing was changed.",
    "timeout_unknown": "We could not confirm whether this went through. Retrying the same request will check first.",
    "output_invalid": "The tool finished but its answer did not pass validation, so it is not shown.",
    "internal_error": "Something went wrong on our side.",
    "retry_budget_exhausted": "This request has failed too many times and will not be retried.",
}'''

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
