"""Independent Node executor with one bug: execute() hashes the canonical arguments as Buffer.from(canon, 'latin1'),
cutting each UTF-16 code unit to its low byte.

Where it ships: by crypto helpers written for Node < 6, where hash.update(string) defaulted to 'binary'.

Written blind in round 15 from the docs alone (examples/buggy/BLIND15.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "  const argsHashRaw = sha256(Buffer.from(canon, 'utf8'));"
NEW = "  const argsHashRaw = sha256(Buffer.from(canon, 'latin1'));"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
