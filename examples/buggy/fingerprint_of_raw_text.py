#!/usr/bin/env python3
"""Bug: the idempotency record's fingerprint is a hash of the raw argument text, not of the canonical
arguments, so a retry with the same arguments in another key order or spacing is idempotency_conflict.

Where it ships: idempotency middleware that hashes the request body bytes (the common "request fingerprint =
sha256(body)"); models re-emit the same arguments with other whitespace or key order all the time.

Expected catch: nothing today unless a scenario retries with the same arguments in other text.
"""

from correct import cp, serve


def pipeline(self, call, auth, business_request_id, ctx, meta):
    tool, arguments, canonical_arguments, arguments_hash = cp.decode(call, self.tools)
    resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
    held = None
    if tool.side_effect:
        key = cp.derive_key(auth, tool.name, canonical_arguments, business_request_id)
        meta["idempotency_key"] = key
        raw = call["arguments"].get("raw")
        fingerprint = cp.sha256_hex(raw) if isinstance(raw, str) else arguments_hash  # the bug: the text's hash
        claimed = self.claim(key, fingerprint, tool, arguments, ctx, meta)
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
    envelope = cp.fail(result, meta) if isinstance(result, cp.Refusal) else cp.succeed(result, meta)
    if held is not None:
        self.compare_and_set(held[0], held[1], state, envelope)
    return envelope


cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
