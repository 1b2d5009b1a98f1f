"""Buggy executor: meta.request_id (and X-Request-Id) is derived from the idempotency key.

Changed place: `Executor.run_decoded`, right after the key is derived (examples/python/callproof_executor.py). For
side-effecting tools every attempt, duplicate and retry of one business operation gets the same request id
(`req_` + the first 24 hex of the key), instead of one id per execution (envelope.schema.json: "The executor's id
for this execution").
Where teams ship it: teams that reuse the idempotency key as the correlation/trace id "so all attempts of an
operation group together in the logs".
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "run_decoded",
             '''            meta["idempotency_key"] = key''',
             '''            meta["idempotency_key"] = key
            ctx.request_id = meta["request_id"] = "req_" + key[:24]  # BUG: one request id per operation''')

if __name__ == "__main__":
    serve(__file__)
