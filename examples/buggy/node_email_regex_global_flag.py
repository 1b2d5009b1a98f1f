"""node_email_regex_global_flag: the shared email format regex carries the `g` flag.

Behaviour: `EMAIL.test(v)` on a module-level `/.../g` regex keeps `lastIndex` between calls: after a valid address
matches, the next test starts at the old end of the match, fails, and resets. Every other valid `to` address is
refused as schema_violation (`format` at /to); invalid ones are still refused.

Where it ships: shared regex constants with `g` used with `.test()` (copied from a `.replace`/`.match` use), a
classic JavaScript gotcha in validators.

Doc sentence it breaks: docs/errors.md schema_violation is for arguments that "do not match the tool's input
schema (... formats checked)"; a valid call must execute (and a retry of a finished one must replay,
docs/protocol.md step 3).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;"
NEW = "const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/g; // BUG: `g` makes .test() stateful (lastIndex)"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
