"""The nesting limit is counted with `>=`: exactly 64 levels of argument text is refused as `too_deep`.

Behaviour: the depth guard that runs over the raw argument text before parsing refuses a container when the depth
*reaches* the limit instead of when it passes it, so argument text nested exactly 64 levels deep (which the contract
allows, and which then goes on to the schema) is answered `invalid_arguments` (`reason: too_deep`) instead of the
answer the next stage gives it. 65 levels and more are refused as before.

Where it ships: hand-rolled depth guards in JSON front ends and request validators (`if depth >= MAX_DEPTH`), the
commonest off-by-one there is; unit tests usually try "very deep" and "shallow", not the boundary.

Doc sentence it breaks: docs/protocol.md, What the executor must do: "nesting deeper than 64 are
`invalid_arguments`" (and docs/errors.md: "containers nest deeper than the limit (default 64)"): 64 levels is not
deeper than 64.
"""

from correct import cp, serve


def _too_deep_offset(text):
    """The offset where nesting first passes MAX_DEPTH (outside strings), or None."""
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth >= cp.MAX_DEPTH:  # BUG: reaching the limit is not passing it (64 levels are allowed)
                return index
        elif char in "]}":
            depth -= 1
    return None


cp._too_deep_offset = _too_deep_offset

if __name__ == "__main__":
    serve(__file__)
