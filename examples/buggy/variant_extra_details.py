#!/usr/bin/env python3
"""Correct, written another way: every error's `details` carries two more members the docs do not list: the
pipeline `stage` that refused (`decode`, `authorize`, `idempotency`, `business`, `downstream`, ...) and `see`,
the code's section of the error documentation.

Where it ships: executors add their own machine-readable hints to errors (a stage, a docs anchor, an error
class) beside the documented keys.

Permitted by docs/envelope.schema.json (`details` is `"type": "object"` with no `additionalProperties`:
"Machine-readable facts; the keys each code uses are listed in docs/errors.md"), by the corpus contract
(scenarios/corpus/malformed.toml: "each listed key must be present with exactly this value (others may exist
too)") and by docs/protocol.md ("Receivers ignore members they do not know"). Every documented key keeps its
value; the extra ones depend on the code only, so a missing and a foreign resource are still refused byte for
byte alike.

Expected: passes every check under --profile all. A false-positive probe for checks that compare `details`
(corpus-details, expectations, the refusal-uniform checks, rate-limit-retry-after).
"""

from correct import cp, serve

ORIGINAL_FAIL = cp.fail

STAGES = {
    "invalid_json": "decode", "invalid_arguments": "decode", "schema_violation": "decode",
    "tool_not_found": "decode", "unauthorized": "authorize", "forbidden": "authorize",
    "approval_required": "authorize", "business_rejected": "business", "idempotency_conflict": "idempotency",
    "operation_in_progress": "idempotency", "retry_budget_exhausted": "idempotency",
    "dependency_unavailable": "downstream", "rate_limited": "downstream", "timeout_not_started": "deadline",
    "timeout_unknown": "downstream", "output_invalid": "output", "internal_error": "executor",
}


def fail(refusal, meta):
    envelope = ORIGINAL_FAIL(refusal, meta)
    error = envelope["error"]
    error["details"] = dict(error["details"], stage=STAGES[error["code"]], see="errors.md#" + error["code"])
    return envelope


cp.fail = fail

if __name__ == "__main__":
    serve(__file__)
