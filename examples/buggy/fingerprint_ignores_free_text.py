"""Bug: the idempotency fingerprint leaves out free-text arguments.

A wrapper of `Executor.claim`: the fingerprint that tells a retry from a changed request is computed over the
arguments without their free-text members (`reason`, `subject`, `body`, `note`, `message`, `description`), so a
model that rewords its text on a retry is not refused as a conflict. The same business request with another
email body (or another refund reason) is then answered the first call's stored outcome, or sent with the new
text, instead of `idempotency_conflict`.

Doc sentence broken: docs/errors.md idempotency_conflict "the caller reused a business request id ... for a call
whose canonical arguments differ from the first call's. Nothing is executed"; docs/protocol.md "the same business
request with other arguments is `idempotency_conflict`".

Where it ships: idempotency middlewares tuned after "false conflicts" from LLM retries (the model paraphrases the
reason or the message text), hashing only the "business" fields.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve

FREE_TEXT = ("reason", "subject", "body", "note", "message", "description")
original_claim = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    significant = {name: value for name, value in arguments.items() if name not in FREE_TEXT}  # BUG
    fingerprint = cp.sha256_hex(cp.canonical(significant))
    return original_claim(self, key, fingerprint, tool, arguments, ctx, meta)


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
