"""Correct variant of the independent Node executor: every store write is fsync'ed (the temporary file before
the rename, then the folder after it) before the executor goes on: slower, and durable across a power cut too.

docs/protocol.md: "`durable_store`: your idempotency records survive a restart of your process." and "Record the
outcome, then answer with the envelope."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = ("""    fs.writeFileSync(tmp, JSON.stringify(this.data));
    fs.renameSync(tmp, this.file);
""",)
NEW = ("""    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, JSON.stringify(this.data));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    const dirFd = fs.openSync(path.dirname(this.file), 'r');
    try { fs.fsyncSync(dirFd); } finally { fs.closeSync(dirFd); }
""",)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
