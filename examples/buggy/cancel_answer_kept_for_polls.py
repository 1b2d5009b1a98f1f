"""Bug: a cancel's final answer is kept as the task's final answer, and later polls answer it.

`Executor.run_decoded` keeps one task-status entry per (tenant, handle), and every task answer feeds it: a
poll's, and also a cancel's. When a cancel answers a final status (the job reports `cancelled`, or `completed`
because it finished first), that `{task_id, status}` becomes the kept final answer, and every later poll of the
handle answers it: without the poll's `result` member, and in place of what a poll would have read and kept.

Doc sentence broken: docs/protocol.md "a poll claims no idempotency key; the first final poll answer of a handle
is kept and answered to every later poll"; docs/conformance-app.md "an executor keeps the **first final answer**
(validated once against the output schema) and answers it to every later poll of that handle".

Where it ships: MCP task stores and job trackers that update one status record from every response about the
job (tasks/get and tasks/cancel alike), then serve polls from the record once it is terminal.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    task_kind = tool.entry.get("task")
    if task_kind in ("poll", "cancel"):  # BUG: cancels feed the kept final answer too
        final_key = (auth["tenant_id"], arguments.get("task_id"))
    if task_kind == "poll":
        with self.lock:
            kept = self.task_finals.get(final_key)
        if kept is not None:
            return cp.succeed(kept, meta)
    held = None
    if tool.side_effect:
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        meta["idempotency_key"] = key
        claimed = self.claim(key, arguments_hash, tool, arguments, ctx, meta)
        if isinstance(claimed, dict):
            return claimed
        held = claimed
    try:
        self.check_business_rules(tool, arguments, resource)
        state, result = self.call_tool(tool, arguments, ctx, held)
    except cp.Refusal as refusal:
        state, result = "FAILED_FINAL", refusal
    if not isinstance(result, cp.Refusal):
        violations = cp._violations(tool.output, result)
        if violations:
            state, result = "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's output breaks its contract",
                                                       path=violations[0]["path"],
                                                       keyword=violations[0]["keyword"])
    if final_key is not None and not isinstance(result, cp.Refusal) and \
            result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            kept = self.task_finals.setdefault(final_key, result)
        if task_kind == "poll":
            result = kept
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
