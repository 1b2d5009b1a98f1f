"""Independent Node executor with one bug: execute() builds identityHeaders with Object.assign(BASE_HEADERS, {...}),
mutating one module-level object shared by every call in flight.

Where it ships: in HTTP wrappers that merge default headers with Object.assign(defaults, perRequest).

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    "const INSTANCE = crypto.randomBytes(8).toString('hex');\n",
    '  const identityHeaders = {',
    "    'X-Subject-Id': String(auth.subject_id ?? ''),\n  };\n",
)
NEW = (
    "const INSTANCE = crypto.randomBytes(8).toString('hex');\nconst BASE_HEADERS = {}; // default headers of every downstream request\n",
    '  const identityHeaders = Object.assign(BASE_HEADERS, {',
    "    'X-Subject-Id': String(auth.subject_id ?? ''),\n  });\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
