"""Bug: `output_invalid` for a result that breaks the output schema carries no `path` or `keyword`.

Ships in: adapters that catch a jsonschema/pydantic ValidationError and raise a bare "contract violated" error
without the location.
Breaks: docs/errors.md output_invalid, "**Details:** `path` and `keyword` of the first violation (never the
offending value)".
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "run_decoded",
             ('path=violations[0]["path"],', 'keyword=violations[0]["keyword"])'),
             ('', ')'))

if __name__ == "__main__":
    serve(__file__)
