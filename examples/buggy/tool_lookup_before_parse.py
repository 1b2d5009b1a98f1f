#!/usr/bin/env python3
"""Bug: the tool name is looked up before the argument text is decoded, so an unknown tool with broken arguments
answers `tool_not_found` where the first refusal should be `invalid_json` / `invalid_arguments`.

Where it ships: the usual function-calling dispatcher, `fn = TOOLS[call.name]; args = json.loads(call.arguments)`.
docs/protocol.md: "in this order, the first refusal winning: size -> JSON syntax -> a top-level object -> the exact
tool name -> the input schema"; docs/errors.md, tool_not_found: "Checked after the arguments' syntax and shape,
before the schema."

Expected checks: corpus-codes, only if a corpus case pairs a wrong tool name with bad text (else missed). Written
blind in round 4 (examples/buggy/BLIND4.md).
"""

from correct import cp, serve


def decode(call, tools):
    # BUG: dispatch first: the tool name is checked before the size, the syntax and the shape of the arguments.
    tool = tools.get(call["name"])
    if tool is None:
        raise cp.Refusal("tool_not_found", "no tool has this exact name", tool=call["name"][:64])
    arguments = call["arguments"]
    if "raw" in arguments:
        value = cp.parse_raw(arguments["raw"])
    else:
        value = arguments.get("value")
        cp.check_value_shape(value)
    if not isinstance(value, dict):
        raise cp.Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
                         found=cp._json_type(value))
    violations = cp._violations(tool.input, value)
    if violations:
        first = violations[0]
        named = {name: cp._named(violations, keyword) for name, keyword in
                 (("missing", "required"), ("unexpected", "additionalProperties"))}
        listed = [{key: item for key, item in violation.items() if key != "members"} for violation in violations[:10]]
        raise cp.Refusal("schema_violation", "the arguments do not match the tool's input schema",
                         path=first["path"], keyword=first["keyword"], violations=listed,
                         violations_truncated=len(violations) > 10,
                         **{name: members for name, members in named.items() if members})
    text = cp.canonical(value)
    return tool, value, text, cp.sha256_hex(text)


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
