r"""independent_store_file_without_session: the store file is named without the session.

Behaviour: the store file keeps the parent's pid in its name but not the hello's `session`, so every scenario of a
conform run loads and overwrites one file: records of one scenario answer (replay, or refuse as conflicts) the
calls of another that reuses its business request ids.

Where it ships: file- or SQLite-backed agent frameworks whose store path is a constant per application ("the
idempotency key is unique anyway").

Doc sentence it breaks: docs/protocol.md (hello, `session`): "keep the records of different sessions apart ...
the records of one must never answer the calls of another".

Written blind in round 9 (BLIND9.md), caught then (27 scenarios of the whole suite).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.py"
OLD = "        self.path = os.path.join(base, \"fresh-executor-%s-%d.json\" % (session, os.getppid()))\n"
NEW = (
    "        # BUG(store_file_without_session): one store file per executor host/supervisor, the session left out of\n"
    "        # the name (\"records are keyed by the idempotency key, which is unique anyway\"). Every process of the run\n"
    "        # loads and overwrites the same file. Breaks docs/protocol.md (hello, `session`): \"If your idempotency\n"
    "        # store outlives your process ... keep the records of different sessions apart ... the records of one\n"
    "        # must never answer the calls of another.\" Ships in file/SQLite-backed agent frameworks whose store path\n"
    "        # is a per-app constant.\n"
    "        self.path = os.path.join(base, \"fresh-executor-%d.json\" % (os.getppid(),))\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
