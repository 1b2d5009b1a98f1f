"""Correct variant: `output_invalid` lists every violation it found, by path and keyword.

The change: besides `path` and `keyword` of the first violation, an `output_invalid` answer carries
`details.violations`: up to 10 `{path, keyword}` pairs, one per violation of the output schema, never a value
(the withheld result stays withheld). Applies to a tool's own answer and to a reconciled `completed` result.

Where it ships: executors that reuse their input validator's reporting (schema_violation's `violations` list)
for output, so an operator sees every broken member of a downstream's answer at once.

Doc sentences relied on: docs/errors.md: "`details` carries at least the members listed for its code below; an
executor may add others (a clue for the caller, a trace id), and a client ignores the ones it does not know";
output_invalid, Details: "`path` and `keyword` of the first violation (never the offending value)"; "The result is
withheld entirely, never partly returned" (paths and keywords are not the result).
"""

from correct import changed_copy, cp, serve

OLD = 'keyword=violations[0]["keyword"])'
NEW = ('keyword=violations[0]["keyword"], violations=[{"path": v["path"], "keyword": v["keyword"]} '
       'for v in violations[:10]])')

changed_copy(cp.Executor, "run_decoded", OLD, NEW)
changed_copy(cp.Executor, "reconcile", OLD, NEW)

if __name__ == "__main__":
    serve(__file__)
