"""Bug: a successful task_cancel drops the kept final poll answer of its handle ("a write invalidates the read
cache"), so the next poll reads the job again and answers a freshly signed download_url.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
from correct import cp, serve

_original = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    envelope = _original(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                         meta)
    if tool.entry.get("task") == "cancel" and envelope.get("ok"):
        # BUG(task_cancel_invalidates_final): the cancel changed the job, so forget the kept final answer
        with self.lock:
            self.task_finals.pop((auth["tenant_id"], arguments.get("task_id")), None)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
