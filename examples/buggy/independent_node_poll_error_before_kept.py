"""Buggy independent Node executor (blind round 13): a failed poll read is answered before the kept final answer is looked at."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    """  const kept = store.getTask(tkey);
  if (kept) return okEnv(kept);
  if (r.error) return fail(r.error);""",
)
NEW = (
    """  if (r.error) return fail(r.error); // BUG(poll_error_before_kept)
  const kept = store.getTask(tkey);
  if (kept) return okEnv(kept);""",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
