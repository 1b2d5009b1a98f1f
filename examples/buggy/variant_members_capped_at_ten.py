"""Correct variant: `details.missing` and `details.unexpected` list at most 10 members.

What it does differently: the example lists at most 32 unexpected members (in the order they appear) and every
missing one. This variant caps both lists at 10 pointers, the same cap errors.md gives `violations` ("up to 10 by
default"), keeping the first 10 in the example's order. Every other detail is unchanged: `path`, `keyword`,
`violations`, `violations_truncated`.

Where it ships: validators and API gateways that cap every list they put into an error body at one configured
size (ajv's error list, Spring's BindingResult rendered with a limit), so an argument object with thousands of
unknown keys cannot blow up the error.

Docs relied on: docs/errors.md schema_violation, Details: "`violations` (up to 10 by default, each with `path`,
`keyword`, `message`) and `violations_truncated`; `missing` and `unexpected`, when there are any, list the JSON
pointers of the members that `required` found missing and that `additionalProperties` did not allow, so a client
never parses a message for them." No size for the two lists is stated (the example caps `unexpected` at 32, so a
cap is taken to be allowed; which cap is not said).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(
    cp, "_named",
    """    return named""",
    """    return named[:10]""",
)

if __name__ == "__main__":
    serve(__file__)
