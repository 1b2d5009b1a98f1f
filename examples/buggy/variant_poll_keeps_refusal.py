"""Correct variant: the first final poll answer of a handle that breaks the output schema is answered
output_invalid, and that refusal is kept per (tenant, handle): later polls answer the same refusal (after
authorization) without reading the job again.

docs/conformance-app.md: "A final answer that breaks the output schema is answered `output_invalid`; a later poll
may read the job again or answer the same refusal, but never the broken result."
"""

import correct
from correct import cp

_run_decoded = cp.Executor.run_decoded
_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if (tool.entry.get("task") == "poll" and isinstance(result, dict)
            and result.get("status") in cp.FINAL_TASK_STATUSES and cp._violations(tool.output, result)):
        ctx.final_broken = True  # a final answer that breaks the schema: its refusal is final too
    return state, result


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    if tool.entry.get("task") != "poll":
        return _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    final_key = (auth["tenant_id"], arguments.get("task_id"))
    with self.lock:
        refused = self.__dict__.setdefault("task_refusals", {}).get(final_key)
    if refused is not None:
        self.authorize(tool, arguments, arguments_hash, auth, ctx)  # still only for a caller who may see it
        return cp.fail(refused, meta)
    envelope = _run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                            ctx, meta)
    error = envelope.get("error") or {}
    if getattr(ctx, "final_broken", False) and error.get("code") == "output_invalid":
        with self.lock:
            self.task_refusals.setdefault(final_key, cp.Refusal("output_invalid", error["message"],
                                                                **error["details"]))
    return envelope


cp.Executor.call_tool = call_tool
cp.Executor.run_decoded = run_decoded

if __name__ == "__main__":
    correct.serve(__file__)
