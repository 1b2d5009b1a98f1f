"""Bug: a task submission is not treated as a side effect ("the job handle is idempotent by itself"), so
export_account_data claims no idempotency key: duplicates and retries start new jobs.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
from correct import cp, serve

_original_init = cp.Tool.__init__


def tool_init(self, entry):
    _original_init(self, entry)
    # BUG(task_submit_skips_claim): async submissions are not side effects
    self.side_effect = self.risk != "read" and entry.get("task") != "submit"


cp.Tool.__init__ = tool_init

if __name__ == "__main__":
    serve(__file__)
