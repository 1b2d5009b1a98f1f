"""Independent Node executor with one bug: fillTemplate() percent-encodes path and query values with the legacy global
escape() instead of encodeURIComponent(): non-ASCII goes as %uXXXX / Latin-1 %XX, and + / @ stay raw.

Where it ships: in old browser-era helpers copied into Node services.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    return encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));"
NEW = "    return escape(typeof v === 'string' ? v : JSON.stringify(v));"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
