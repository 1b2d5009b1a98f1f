#!/usr/bin/env python3
"""Written another way, and a judgement call: `Retry-After` is read as a decimal number (`float`, so "1.5"
would be accepted too) and `details.retry_after_ms` is written as that number times 1000, which Python's json
writes as `7000.0` rather than `7000`. Same number, other spelling.

Where it ships: Python executors that parse headers with `float()` (the HTTP spec allows only whole seconds, but
lenient readers are common); any JSON writer that keeps the float type of a computed value.

Permitted? docs/errors.md, rate_limited: "`retry_after_ms`, from the downstream's `Retry-After` or a default
of 1000 ms"; docs/protocol.md: "`details.retry_after_ms = s × 1000`"; docs/envelope.schema.json:
`"retry_after_ms": {"type": "integer", "minimum": 0}`, and in JSON Schema 2020-12 "integer" is any number with
a zero fractional part, so 7000.0 validates. Against it: the docs' own rule for inputs ("an integer field
accepts only integer literals, so `100.0` ... are refused, because parsers in other languages read them
differently") applied to outputs, which no document states.

Expected: passes every check under --profile all (numbers are judged by value since 2026-12-03; before,
`rate-limit-retry-after` called 7000.0 missing and `expectations` told it from 7000).
"""

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if isinstance(result, cp.Refusal) and result.code == "rate_limited":
        result.details["retry_after_ms"] = float(result.details["retry_after_ms"])
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
