#!/usr/bin/env python3
"""Bug: the downstream's answer is projected onto the output schema's properties and its null members are
dropped on the way ("clean the output for the model"), so a required nullable member goes missing: every
`task_status` poll of a working job (`result: null`) is output_invalid.

Where it ships: `{k: v for k, v in body.items() if v is not None}` (or `exclude_none=True`, `JSON.stringify`
replacers) applied to tool output. Catalog: task_status's `result` is required and null until completed.

Expected catch: expectations and task checks in the task scenarios (a working poll answered output_invalid).
"""

from correct import cp, serve


def project(tool, value):
    if isinstance(value, dict) and tool.declared_out:
        # BUG: null members are dropped along with the undeclared ones.
        return {name: item for name, item in value.items() if name in tool.declared_out and item is not None}
    return value


cp.project = project

if __name__ == "__main__":
    serve(__file__)
