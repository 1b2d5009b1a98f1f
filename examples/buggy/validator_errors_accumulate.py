"""Bug: schema violations are collected on the tool's long-lived validator object and never cleared.

After one call of a tool breaks its input schema, every later call of that tool is refused with the old violations
(a valid corrected call included), and later refusals list earlier calls' violations. Ships in validators and
serializers that keep `self.errors` between uses (a reused serializer instance, a class-level `errors = []`).
Breaks docs/errors.md schema_violation ("the arguments do not match the tool's input schema") and
repair_arguments ("the corrected call may keep its business request id").
"""

from correct import changed_copy, cp, serve

changed_copy(cp, "decode",
             """    violations = _violations(tool.input, value)
""",
             """    tool.errors = getattr(tool, "errors", [])
    tool.errors.extend(_violations(tool.input, value))
    violations = tool.errors
""")

if __name__ == "__main__":
    serve(__file__)
