"""The kept first final answer of a task handle is looked up for every task tool that takes the handle (polls and
cancels), keyed by (tenant, task_id): a `task_cancel` after a final poll answers the poll's kept answer (with its
`result` member) and sends no `DELETE /exports/{task_id}`.

Where it ships: a task-handle cache keyed by the handle only, shared by the task tools of an MCP server.

Breaks docs/protocol.md (Task tools): "the first final answer of a handle is kept and answered to every later
poll" (polls only), and docs/conformance-app.md: "`task_cancel` sends `DELETE /exports/{task_id}` and answers the
job's status" (a cancel is a write with its own output schema).
"""

import json  # noqa: F401  (the copied method reads JSON)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402
from callproof_executor import (  # noqa: E402,F401  (the same module object as cp)
    CLAIM_ROUNDS, FINAL_TASK_STATUSES, derive_key, LEASE_MARGIN_MS, MAX_ATTEMPTS, Record, Refusal, _violations, fail,
    Lost, NotSent, TimedOut, in_progress, now_ms, project, rejection, replay, succeed)


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                meta):
    """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    final_key = None
    if tool.entry.get("task") == "poll":
        final_key = (auth["tenant_id"], arguments.get("task_id"))
    if tool.entry.get("task") in ("poll", "cancel"):  # BUG: a cancel reads the polls' kept answer too
        with self.lock:
            kept = self.task_finals.get((auth["tenant_id"], arguments.get("task_id")))
        if kept is not None:
            return succeed(kept, meta)
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
    if final_key is not None and not isinstance(result, Refusal) and result.get("status") in FINAL_TASK_STATUSES:
        with self.lock:
            result = self.task_finals.setdefault(final_key, result)
    envelope = fail(result, meta) if isinstance(result, Refusal) else succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    serve(__file__)
