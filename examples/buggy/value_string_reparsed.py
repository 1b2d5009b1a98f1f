#!/usr/bin/env python3
"""Bug: already-parsed arguments that are a string are parsed again as JSON text instead of refused.

Where it ships: MCP and agent-framework glue that "helpfully" accepts a client which double-encodes its
arguments (`"arguments": "{\\"order_id\\": ...}"`, a real OpenAI-to-MCP bridge habit), LangChain's
`json.loads(args) if isinstance(args, str) else args`. docs/protocol.md: `{"value": <JSON>}` "may be any JSON
value, including a string or an array, which is why a bare string could not have meant raw text"; a string is
`invalid_arguments` (`not_an_object`, `found: string`). The second parse is also Python's lenient `json.loads`
(NaN, duplicate keys), not the strict decoder.

Expected check: corpus-codes and malformed-input-refused, if the corpus sends a `value` that is a string holding
an object.
"""

import json

from correct import cp, serve

_decode = cp.decode


def decode(call, tools):
    arguments = call["arguments"]
    if "raw" not in arguments and isinstance(arguments.get("value"), str):
        try:
            # BUG: a double-encoded object is decoded again, leniently.
            call = dict(call, arguments={"value": json.loads(arguments["value"])})
        except ValueError:
            pass
    return _decode(call, tools)


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
