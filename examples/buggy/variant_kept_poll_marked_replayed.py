"""Correct variant: a poll answered from the kept final answer of its handle says so: `meta.replayed = true`.

docs/envelope.schema.json: "replayed: True when the answer is the stored outcome of an earlier attempt." and
docs/protocol.md: "the first final poll answer of a handle is kept and answered to every later poll".
"""

import correct
from correct import cp

_run_decoded = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    kept = None
    if tool.entry.get("task") == "poll":
        with self.lock:
            kept = self.task_finals.get((auth["tenant_id"], arguments.get("task_id")))
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    if kept is not None and envelope.get("ok") and envelope.get("result") is kept:
        envelope["meta"]["replayed"] = True  # answered from the store, not from the job
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    correct.serve(__file__)
