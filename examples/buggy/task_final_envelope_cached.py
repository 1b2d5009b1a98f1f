"""Bug: the first final answer of a task poll is kept as the whole envelope, meta
included, and answered as is to every later poll of the handle: their meta.call_id, attempt and request_id are the
first final poll's.

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve

succeed, fail, Refusal, _violations = cp.succeed, cp.fail, cp.Refusal, cp._violations
derive_key, FINAL_TASK_STATUSES = cp.derive_key, cp.FINAL_TASK_STATUSES


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
            return kept  # BUG(task_final_envelope_cached): the kept envelope, with the first final poll's meta
    held = None
    if tool.side_effect:
        key = derive_key(auth, tool.name, canonical_arguments, business_request_id)
        meta["idempotency_key"] = key
        claimed = self.claim(key, arguments_hash, tool, arguments, ctx, meta)
        if isinstance(claimed, dict):
            return claimed
        held = claimed
    try:
        self.check_business_rules(tool, arguments, resource)
        state, result = self.call_tool(tool, arguments, ctx, held)
    except Refusal as refusal:
        state, result = "FAILED_FINAL", refusal
    if not isinstance(result, Refusal):
        violations = _violations(tool.output, result)
        if violations:
            state, result = "FAILED_FINAL", Refusal("output_invalid", "the tool's output breaks its contract",
                                                    path=violations[0]["path"],
                                                    keyword=violations[0]["keyword"])
    envelope = fail(result, meta) if isinstance(result, Refusal) else succeed(result, meta)
    if final_key is not None and not isinstance(result, Refusal) and result.get("status") in FINAL_TASK_STATUSES:
        with self.lock:
            envelope = self.task_finals.setdefault(final_key, envelope)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
