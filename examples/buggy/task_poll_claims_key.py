"""Task polls go through the idempotency stage like side-effecting calls: a poll claims a key and is replayed.

Behaviour: `task_status` is run through the same idempotency claim as writes (an "every tool call is idempotent"
wrapper that only exempts plain reads, and a poll is a task tool). The key is derived as for any operation: from
the business request id, or, without one, from the canonical arguments, i.e. the handle. A later poll of the same
operation (same business request id, or none and the same handle) finds the record SUCCEEDED and replays the first
poll's answer (`working`) with `meta.replayed = true`, so the job's progress is never seen again; and a poll that
ran while another was in flight answers `operation_in_progress`.

Where it ships: agent frameworks and tool routers that wrap every tool call in idempotency middleware by default
(request-id dedup caches keyed on tool + arguments), exempting only tools marked `read` by name.

Doc sentence it breaks: docs/protocol.md, Task tools: "a poll claims no idempotency key" (and
docs/conformance-app.md: "Polling is a read.").
"""

from correct import cp, serve


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                meta):
    """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    if tool.entry.get("task") == "poll":
        final_key = (auth["tenant_id"], arguments.get("task_id"))
        with self.lock:
            kept = self.task_finals.get(final_key)
        if kept is not None:
            return cp.succeed(kept, meta)
    held = None
    # BUG: task polls are claimed like side effects (idempotency middleware on every task tool).
    if tool.side_effect or tool.entry.get("task") == "poll":
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
