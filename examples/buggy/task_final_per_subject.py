#!/usr/bin/env python3
"""Bug: the kept first final answer of a task poll is keyed by (tenant, subject, handle) instead of (tenant,
handle), so another caller of the same tenant who may see the job (a support_admin) reads the job again and gets a
freshly signed download_url instead of the kept answer.

Where it ships: caches keyed by the whole principal as a blanket safety rule. docs/protocol.md, Task tools: "the
first final poll answer of a handle is kept and answered to every later poll"; docs/checks.md, task-final-stable:
"every later poll of the same handle by the same tenant answers the same thing, result included".

Expected checks: task-final-stable, only if a scenario polls one handle as two subjects of one tenant (likely
missed). Written blind in round 5 (examples/buggy/BLIND5.md).
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                meta):
    """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    if tool.entry.get("task") == "poll":
        # BUG: the kept answer is the subject's, not the tenant's: another subject of the tenant reads again.
        final_key = (auth["tenant_id"], auth["subject_id"], arguments.get("task_id"))
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
    if final_key is not None and not isinstance(result, cp.Refusal) and result.get("status") in cp.FINAL_TASK_STATUSES:
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
