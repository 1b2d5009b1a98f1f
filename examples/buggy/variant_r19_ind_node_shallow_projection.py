"""Correct variant: the independent Node executor projects the top level only; nested objects are kept whole.

The change: `project` in examples/independent/node/schema.mjs keeps the members the output schema declares at
the top level and copies each one's value as it came, instead of projecting nested objects (a poll's `result`)
onto their own `properties` too. Validation is unchanged and runs on the projected value.

Where it ships: most projections in tool executors are one level deep (`pick(body, Object.keys(schema.properties))`,
lodash `_.pick`), since the output schema's nested objects rarely have members to drop.

Doc sentence relied on: docs/checks.md `result-matches-downstream`: "below the top level, how deep an executor
projects is its own choice (as for `output-invalid-withheld`), so a nested object may leave members out, but every
member it keeps is the body's"; `output-invalid-withheld`: "how deep an executor projects the downstream's body onto
the schema is its own choice".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_node  # noqa: E402

if __name__ == "__main__":
    exec_node(__file__, "schema.mjs",
              "if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = project(sub, v[k]);",
              "if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = v[k];")
