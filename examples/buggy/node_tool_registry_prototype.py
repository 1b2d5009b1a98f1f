"""node_tool_registry_prototype: the tool is looked up with `tools[call.name]`, so Object.prototype members are found.

Behaviour: the tool is looked up with `tools[call.name]` on the plain-object registry. A model-emitted name that is
an Object.prototype member (`constructor`, `toString`, `hasOwnProperty`, `__proto__`, `valueOf`) finds a function or
the prototype object instead of nothing; the call then crashes on `tool.entry` and is answered internal_error
instead of tool_not_found.

Where it ships: the MCP TypeScript SDK's server pattern `const tool = this._registeredTools[name]`, and most JS
agent frameworks' `handlers[name]` dispatch tables.

Doc sentence it breaks: docs/errors.md, tool_not_found: "no registered tool has exactly this name. Names are
compared byte for byte".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "const tool = Object.prototype.hasOwnProperty.call(tools, call.name) ? tools[call.name] : undefined;"
# BUG: no own-property test on the registry.
NEW = "const tool = tools[call.name];"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
