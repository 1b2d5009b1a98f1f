#!/usr/bin/env python3
"""Correct, written another way: the size of already parsed arguments (`{"value": ...}`) is the UTF-8 length
of their compact JSON serialization, measured after the nesting is checked (the example estimates the size
while it walks the value).

Where it ships: executors that serialize parsed arguments once (for the audit log or the idempotency record)
and measure that.

Permitted by docs/protocol.md: "size (1 MiB of raw text)" is the rule for raw text; for a parsed value the
docs do not say how its size is measured, and its compact serialization is the raw text it stands for.

Expected: passes every check under --profile all.
"""

from correct import cp, serve


def check_value_shape(value):
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        if isinstance(node, (dict, list)):
            if depth + 1 > cp.MAX_DEPTH:
                raise cp._too_deep()
            stack.extend((child, depth + 1) for child in children)
    size = cp.utf8_size(cp.json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    if size > cp.MAX_ARGUMENT_BYTES:
        raise cp.Refusal("invalid_arguments", "tool arguments are too large", reason="too_large",
                         limit_bytes=cp.MAX_ARGUMENT_BYTES, size_bytes=size)


cp.check_value_shape = check_value_shape

if __name__ == "__main__":
    serve(__file__)
