"""Blind round 19 (second batch): a task poll's meta carries the submission's idempotency key.

The change: to let traces join a job's polls to the operation that started it, the executor remembers, for every
handle a submission answered, that submission's `meta.idempotency_key`, and puts it in the meta of every
answer about that handle that has no key of its own (every `task_status` answer; a `task_cancel` keeps its own). A poll is a read that claims no key; the key it now
carries is another call's. Where it ships: tracing/correlation middleware that copies "the operation id" into every
answer about a resource.

Doc sentence it breaks: docs/envelope.schema.json meta.idempotency_key: "Present only for tools with side effects,
once the call got as far as the idempotency stage"; docs/checks.md `meta-echoes-call`: "Nor may the meta carry what
another call established: `idempotency_key` on the answer of a tool without side effects (... `task_status`...)".
"""

from correct import cp, serve

_run_decoded = cp.Executor.run_decoded
_KEYS = {}


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    task = tool.entry.get("task")
    if task == "submit" and envelope.get("ok") and isinstance(envelope.get("result"), dict):
        with self.lock:
            _KEYS[(auth["tenant_id"], envelope["result"].get("task_id"))] = envelope["meta"].get("idempotency_key")
    elif task in ("poll", "cancel"):
        with self.lock:
            key = _KEYS.get((auth["tenant_id"], arguments.get("task_id")))
        if key is not None and "idempotency_key" not in envelope["meta"]:
            envelope["meta"]["idempotency_key"] = key
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
