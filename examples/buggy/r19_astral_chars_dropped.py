"""Blind round 19: result strings lose every character outside the Basic Multilingual Plane.

The change: the function that shapes a downstream body into the tool's result (`project`) also "sanitises" it for
the audit trail: the team writes every result into a MySQL table whose columns are `utf8` (utf8mb3, three bytes at
most per character), which refuses emoji and other astral characters, so the shaper strips them, and the same
sanitised copy is what the envelope returns. Where it ships: executors that log results to a legacy MySQL audit
table, and "sanitise before storing" helpers that are shared between the log and the answer.

Doc sentence it breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the
output schema's properties and validated"; docs/checks.md `result-matches-downstream`: "values are equal", and "a
value rewritten on the way" fails.
"""

import re

from correct import cp, serve

_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")
_project = cp.project


def _scrub(value):
    if isinstance(value, str):
        return _ASTRAL.sub("", value)
    if isinstance(value, dict):
        return {key: _scrub(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    return value


def project(tool, value):
    return _scrub(_project(tool, value))


cp.project = project

if __name__ == "__main__":
    serve(__file__)
