"""Bug: the output is validated on a projected copy, but the unprojected downstream body is what the envelope
returns, so members the output schema does not declare (a job's tenant_id and owner_id, internal fields) reach
the result.

Ships in: code that validates with a lenient model (`Model.model_validate(body)`, extras ignored) and then
returns the raw `body` dict.
Breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the output schema's
properties and validated"; docs/protocol.md, "`ok`, the body projected onto the output schema's properties,
validated".
(One change: where the projection is applied; it moves from the returned value to the validated copy.)
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "call_tool",
             'return "SUCCEEDED", project(tool, json.loads(body))',
             'return "SUCCEEDED", json.loads(body)')
changed_copy(cp.Executor, "run_decoded",
             "violations = _violations(tool.output, result)",
             "violations = _violations(tool.output, project(tool, result))")

if __name__ == "__main__":
    serve(__file__)
