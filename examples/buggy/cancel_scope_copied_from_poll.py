#!/usr/bin/env python3
"""task_cancel: the scope check was copied from task_status and asks for exports:read.

Bug: task_cancel requires `exports:read` (task_status's scope) instead of `exports:write`, so a caller who may only
read exports can cancel them, and one who holds exports:write alone cannot.
Where it ships: per-tool hand-written scope tables; copy-paste between the two task tools that share a handle and
its lookup.
Breaks: catalog task_cancel.json `"required_scopes": ["exports:write"]`; docs/conformance-app.md tool table.
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Executor, "check_caller",
             "tool.entry.get(\"required_scopes\", [])",
             "([\"exports:read\"] if tool.name == \"task_cancel\" else tool.entry.get(\"required_scopes\", []))")

if __name__ == "__main__":
    serve(__file__)
