"""node_additional_properties_in_operator: additionalProperties tests declared names with `in`.

Behaviour: the validator's `additionalProperties: false` asks `name in schema.properties` instead of an own-property
test. The schema's `properties` is a plain object, so an argument named after an Object.prototype member
(`constructor`, `toString`, `valueOf`, `hasOwnProperty`, `__proto__`, ...) counts as declared, passes, and is sent
downstream in the request body.

Where it ships: hand-rolled JSON Schema / request-body validators in JS and TS (`if (!(key in allowed)) reject()`).

Doc sentence it breaks: docs/errors.md schema_violation "an unknown field (including attempts to pass identity ...)"
is refused; docs/conformance-app.md "Every schema sets `additionalProperties: false`".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "const extra = Object.keys(v).filter((name) => !Object.prototype.hasOwnProperty.call(declared, name));"
# BUG: `in` also finds inherited members of Object.prototype.
NEW = "const extra = Object.keys(v).filter((name) => !(name in declared)); // BUG: `in` sees the prototype"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
