"""Independent Node executor with one bug: the fifth retryable failure makes the record final as retry_budget_exhausted
at once, so the sixth attempt answers that error marked as a replay.

Where it ships: a budget check moved into the failure path, "so the record is final as soon as the budget is spent".

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '    if (r.error) {'
NEW = "    if (r.error) {\n      if (r.state === 'FAILED_RETRYABLE' && store.get(key).attempts >= RETRY_BUDGET) { settle('FAILED_FINAL', { error: err('retry_budget_exhausted', { attempts: store.get(key).attempts }) }); return fail(r.error, kmeta); }"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
