"""Correct variant of the independent Python executor: every error's details carry an extra member, `stage`.

What it does differently: `error_obj`, which builds every error the executor answers (and stores for replays),
adds `details.stage`, the pipeline stage that refused: `decode` (invalid_json, invalid_arguments,
schema_violation, tool_not_found), `authorize` (unauthorized, forbidden, approval_required), `idempotency`
(idempotency_conflict, operation_in_progress, retry_budget_exhausted), `downstream` (business_rejected,
dependency_unavailable, rate_limited, timeout_not_started, timeout_unknown, output_invalid) and `internal`
(internal_error). Every member errors.md lists is still there, with the same value.

Where it ships: executors and gateways that tag errors with the middleware layer that raised them (a `source` or
`layer` field in problem+json bodies, OpenTelemetry error attributes copied into the answer).

Docs relied on:
- docs/envelope.schema.json, error.details: "Machine-readable facts; the keys each code uses are listed in
  docs/errors.md." (an open object: `"type": "object"`, no additionalProperties restriction)
- docs/protocol.md, Transport: "Receivers ignore members they do not know (a later callproof/1.x may add optional
  ones)."
- docs/errors.md: "Only `message` and `details` vary from call to call." No sentence forbids other members, except
  `resource_not_accessible` "(with no further detail on purpose)": `stage` is the same for every forbidden answer,
  so it tells nothing about the resource.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_python  # noqa: E402

exec_python(
    __file__, "executor.py",
    """    cat, retry, res, user = CODE_TABLE[code]
    return {"code": code, "category": cat, "message": MESSAGES[code], "retryable": retry,
            "resolution": res, "expose_to_model": True, "expose_to_user": user, "details": details}""",
    """    cat, retry, res, user = CODE_TABLE[code]
    stage = {"input": "decode", "protocol": "decode", "authorization": "authorize", "idempotency": "idempotency",
             "internal": "internal"}.get(cat, "downstream")
    details = dict(details, stage=stage)
    return {"code": code, "category": cat, "message": MESSAGES[code], "retryable": retry,
            "resolution": res, "expose_to_model": True, "expose_to_user": user, "details": details}""",
)
