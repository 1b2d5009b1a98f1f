#!/usr/bin/env python3
"""get_order: an order's note longer than the output schema's maxLength is cut to fit instead of refused.

Bug: after projection, get_order cuts `note` to 2000 characters (the schema's maxLength), so the output validates
and the read answers ok with the cut note, where the contract asks for output_invalid.
Where it ships: "make the output fit the schema" shims in tool wrappers that trim long free text for the model's
context window.
Breaks: docs/protocol.md "7. **Validate the output** against the output schema; an invalid one is withheld
(`output_invalid`)."
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import cp, serve

_project = cp.project


def project(tool, value):
    projected = _project(tool, value)
    if tool.name == "get_order" and isinstance(projected, dict) and isinstance(projected.get("note"), str):
        projected["note"] = projected["note"][:2000]
    return projected


cp.project = project

if __name__ == "__main__":
    serve(__file__)
