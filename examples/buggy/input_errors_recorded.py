#!/usr/bin/env python3
"""Bug: an answer refused for its input is recorded under the business request id, so the corrected call that
keeps the id (as docs/errors.md allows) answers idempotency_conflict and is never executed.

Where it ships: idempotency middleware in front of validation that stores every response under the key (Stripe
stores 4xx answers too; copying that for input errors locks the model out of repairing its call).

Expected catch: nothing today unless a scenario corrects an input error under the same business request id.
"""

from correct import cp, serve

ORIGINAL_PIPELINE = cp.Executor.pipeline
INPUT_CODES = ("invalid_json", "invalid_arguments", "schema_violation", "tool_not_found")


def pipeline(self, call, auth, business_request_id, ctx, meta):
    try:
        return ORIGINAL_PIPELINE(self, call, auth, business_request_id, ctx, meta)
    except cp.Refusal as refusal:
        if refusal.code in INPUT_CODES and business_request_id is not None:
            # the bug: the refused call claims the business request's record
            key = cp.derive_key(auth, call["name"], None, business_request_id)
            fingerprint = cp.sha256_hex(cp.canonical(call["arguments"]))
            record = cp.Record(fingerprint, 0, 0)
            record.state, record.outcome = "FAILED_FINAL", cp.fail(refusal, meta)
            with self.lock:
                self.records.setdefault(key, record)
        raise


cp.Executor.pipeline = pipeline

if __name__ == "__main__":
    serve(__file__)
