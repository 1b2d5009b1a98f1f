"""Correct variant (extra care): the downstream body is validated before projection too, leniently.

The change: before projecting a success body (a 2xx body or a status query's `completed` result) onto the output
schema's properties, the executor validates it against the output schema with `additionalProperties` removed at
every level (the body may carry members no schema declares: a record's `idempotency_key`, a job's `tenant_id`);
after projection it validates the result strictly, as the example does. A violation found before projection is
reported first (`output_invalid` with its `path` and `keyword`), then those found after.

Where it ships: executors that validate what they receive at the boundary (a lenient "input" model of the
downstream's answer, pydantic with `extra="ignore"`) and again what they return (a strict "output" model).

Doc sentences relied on: docs/conformance-app.md: a 2xx with a JSON body is answered "the body, projected onto
the output schema's properties and validated"; docs/checks.md `output-invalid-withheld`: the schema "is read as
plain JSON Schema 2020-12 ... `additionalProperties` is left out, because how deep an executor projects the
downstream's body onto the schema is its own choice"; docs/errors.md output_invalid: "`path` and `keyword` of the
first violation (never the offending value)".
"""

import copy
import threading

from correct import cp, serve


def without_additional(schema):
    if isinstance(schema, dict):
        return {k: without_additional(v) for k, v in schema.items() if k != "additionalProperties"}
    if isinstance(schema, list):
        return [without_additional(v) for v in schema]
    return schema


_LENIENT = {}  # id(strict output validator) -> lenient validator
_pending = threading.local()
_project = cp.project
_violations = cp._violations


def lenient_for(tool):
    validator = _LENIENT.get(id(tool.output))
    if validator is None:
        schema = without_additional(copy.deepcopy(tool.entry["output_schema"]))
        validator = cp.StrictValidator(schema, format_checker=cp.jsonschema.FormatChecker())
        _LENIENT[id(tool.output)] = validator
    return validator


def project(tool, value):
    before = _violations(lenient_for(tool), value)  # the body as received
    result = _project(tool, value)
    _pending.before = (id(tool.output), id(result), before)
    return result


def violations(validator, value):
    found = _violations(validator, value)
    pending = getattr(_pending, "before", None)
    if pending is not None and pending[0] == id(validator) and pending[1] == id(value):
        _pending.before = None
        found = pending[2] + [v for v in found if (v["path"], v["keyword"]) not in
                              {(b["path"], b["keyword"]) for b in pending[2]}]
    return found


cp.project = project
cp._violations = violations

if __name__ == "__main__":
    serve(__file__)
