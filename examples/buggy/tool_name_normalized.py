#!/usr/bin/env python3
"""Bug: the tool name is normalized before lookup (whitespace trimmed, a `functions.` prefix stripped, lowercased).

Where it ships: tool routers that "tolerate" model quirks: OpenAI-style `functions.refund_order` names, models
that capitalise, MCP gateways that lower-case names; a near miss then runs a tool the model did not name.

Expected catch: expectations (decode/unknown_tool), corpus-codes and malformed-input-refused
(decode/malformed_corpus).
"""

from correct import cp, serve

ORIGINAL_DECODE = cp.decode


def decode(call, tools):
    name = call["name"].strip()
    if name.startswith("functions."):
        name = name[len("functions."):]
    return ORIGINAL_DECODE(dict(call, name=name.lower()), tools)  # the bug: not byte for byte


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
