"""Independent Node executor with one bug: httpCall() clears the deadline timer when the response headers arrive, so
the body is read without a deadline.

Where it ships: as the 'timeout until first byte' pattern of hand-rolled http.request code.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "    req.on('response', (res) => {\n      const chunks = [];"
NEW = "    req.on('response', (res) => {\n      clearTimeout(timer); // the downstream answered in time\n      const chunks = [];"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
