"""Bug: a 2xx body is validated against the output schema as soon as it is parsed, before the projection onto
the schema's properties, so internal members of the downstream's record make it output_invalid."""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp.Executor, "call_tool",
             '''                return "SUCCEEDED", project(tool, json.loads(body))''',
             '''                value = json.loads(body)
                violations = _violations(tool.output, value)
                if violations:
                    return "FAILED_FINAL", Refusal("output_invalid", "the tool's output breaks its contract",
                                                   path=violations[0]["path"], keyword=violations[0]["keyword"])
                return "SUCCEEDED", project(tool, value)''')

if __name__ == "__main__":
    serve(__file__)
