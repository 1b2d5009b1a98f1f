"""node_array_passes_object_check: the top-level object check is `typeof value !== 'object'`, which arrays pass.

Behaviour: the "top level is an object" check is written `typeof value !== 'object' || value === null`. In
JavaScript arrays are objects (and so are the parser's Num number literals), so `[...]` and `42` pass it and are
refused later by the schema (`schema_violation`, keyword type) or by the tool name, instead of invalid_arguments /
not_an_object.

Where it ships: any JS/TS argument guard written with typeof (Array.isArray forgotten).

Doc sentence it breaks: docs/errors.md, invalid_arguments: "...or the top level is not an object" (`not_an_object`
with `found`); docs/protocol.md step 1: "→ a top-level object → the exact tool name → the input schema".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "if (!isObject(value)) {"
# BUG: arrays (and the parser's number objects) are objects to typeof.
NEW = "if (typeof value !== 'object' || value === null) {"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
