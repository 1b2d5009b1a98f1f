"""Correct variant: every `dependency_unavailable` envelope carries an extra `details.retry_after_ms` (500), a
suggested backoff, beside its `reason`.

Doc: errors.md "Only `message` and `details` vary from call to call." and dependency_unavailable "Caller: retry the
same business request, with backoff."; envelope.schema.json leaves `details` an open object. Expected: passes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(cp.Refusal, "body", '"details": self.details}',
             '"details": dict(self.details, retry_after_ms=500) if self.code == "dependency_unavailable" '
             'else self.details}')

if __name__ == "__main__":
    serve(__file__)
