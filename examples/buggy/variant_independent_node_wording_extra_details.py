"""The independent Node executor with one legitimate freedom: `err()` rewords every message (`[code] … ; next step:
<resolution>.`) and adds `details.docs` (a fixed URL per code).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '  const [category, retryable, resolution, user] = TABLE[code];\n  return {',
    '    code, category, message: message || MESSAGES[code], retryable, resolution,\n    expose_to_model: true, expose_to_user: user, details,',
)
NEW = (
    "  const [category, retryable, resolution, user] = TABLE[code];\n  const wording = `[${code}] ${(message || MESSAGES[code]).replace(/\\.$/, '')}; next step: ${resolution.replace(/_/g, ' ')}.`;\n  return {",
    '    code, category, message: wording, retryable, resolution,\n    expose_to_model: true, expose_to_user: user, details: { ...details, docs: `https://callproof.invalid/errors#${code}` },',
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
