#!/usr/bin/env python3
"""Bug: arguments that arrive already parsed (`{"value": ...}`) skip the size and depth limits ("the SDK parsed
them, so they are fine"): a 65-level object or a 2 MiB string value goes straight to the schema, which answers
schema_violation instead of invalid_arguments (`too_deep`, `too_large`).

Where it ships: MCP servers and Anthropic tool-use handlers that apply limits to raw text only. docs/errors.md:
invalid_arguments when containers nest deeper than the limit or the arguments are larger than it, checked before
the schema, for both shapes.

Expected catch: corpus cases that send a too-deep or too-large value in parsed form (corpus-codes).
"""

from correct import cp, serve


def decode(call, tools):
    arguments = call["arguments"]
    if "raw" in arguments:
        value = cp.parse_raw(arguments["raw"])
    else:
        value = arguments.get("value")  # BUG: no check_value_shape: parsed arguments have no size or depth limit
    if not isinstance(value, dict):
        raise cp.Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
                         found=cp._json_type(value))
    tool = tools.get(call["name"])
    if tool is None:
        raise cp.Refusal("tool_not_found", "no tool has this exact name", tool=call["name"][:64])
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
