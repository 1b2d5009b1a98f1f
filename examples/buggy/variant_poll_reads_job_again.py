"""Correct variant: a poll whose handle already has a kept final answer still reads the job again
(`GET /exports/{task_id}`, its answer ignored), then answers the kept final answer.

docs/protocol.md: "A kept final task answer is answered from your store; whether a poll also reads the job again
is your choice."
"""

import correct
from correct import cp

_original = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    if tool.entry.get("task") == "poll":
        with self.lock:
            kept = self.task_finals.get((auth["tenant_id"], arguments.get("task_id")))
        if kept is not None:
            self.authorize(tool, arguments, arguments_hash, auth, ctx)
            try:  # read the job again; the kept answer stands whatever it says
                self.downstream.send(tool.downstream["invoke"], arguments, ctx)
            except (cp.NotSent, cp.Lost, cp.TimedOut):
                pass
            return cp.succeed(kept, meta)
    return _original(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                     meta)


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    correct.serve(__file__)
