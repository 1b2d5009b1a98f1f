#!/usr/bin/env python3
"""Bug: an integer field accepts a numeric string or an integral float and coerces it ("30" -> 30, 30.0 -> 30).

Where it ships: pydantic's default lax mode (`amount: int` accepts "30" and 30.0), and every hand-written
`int(args["amount"])`; MCP servers and agent frameworks that build their tool models with pydantic get it free.

Expected catch: malformed-input-refused and expectations (decode/string_for_integer,
decode/parsed_arguments), corpus-codes (decode/malformed_corpus).
"""

import re

from correct import cp, serve

_INTEGER_TEXT = re.compile(r"\s*[+-]?\d+\s*")


def _lax(tool, value):
    """pydantic's lax mode, for the integer fields of the input schema."""
    for name, schema in tool.entry["input_schema"].get("properties", {}).items():
        types = schema.get("type")
        if "integer" not in (types if isinstance(types, list) else [types]):
            continue
        item = value.get(name)
        if isinstance(item, str) and _INTEGER_TEXT.fullmatch(item):
            value[name] = int(item)
        elif isinstance(item, float) and item.is_integer():
            value[name] = int(item)
    return value


def decode(call, tools):
    arguments = call["arguments"]
    if "raw" in arguments:
        value = cp.parse_raw(arguments["raw"])
    else:
        value = arguments.get("value")
        cp.check_value_shape(value)
    if not isinstance(value, dict):
        raise cp.Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
                         found=cp._json_type(value))
    tool = tools.get(call["name"])
    if tool is None:
        raise cp.Refusal("tool_not_found", "no tool has this exact name", tool=call["name"][:64])
    value = _lax(tool, value)  # the bug: coerce, then validate the coerced value
    violations = cp._violations(tool.input, value)
    if violations:
        first = violations[0]
        raise cp.Refusal("schema_violation", "the arguments do not match the tool's input schema",
                         path=first["path"], keyword=first["keyword"], violations=violations[:10],
                         violations_truncated=len(violations) > 10)
    text = cp.canonical(value)
    return tool, value, text, cp.sha256_hex(text)


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
