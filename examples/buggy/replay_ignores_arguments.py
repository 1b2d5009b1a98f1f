#!/usr/bin/env python3
"""Bug: the idempotency record keeps no fingerprint of the arguments, so a changed request under a used business
request id replays the first answer instead of answering idempotency_conflict.

Where it ships: response caches posing as idempotency (store the response under the key, return it for any
request with the key), as many API-gateway plugins and hand-written middlewares do.

Expected catch: conflict-on-changed-arguments and expectations (idempotency/changed_arguments_conflict).
"""

from correct import cp, serve

ORIGINAL_CLAIM = cp.Executor.claim


def claim(self, key, fingerprint, tool, arguments, ctx, meta):
    return ORIGINAL_CLAIM(self, key, None, tool, arguments, ctx, meta)  # the bug: nothing to compare against


cp.Executor.claim = claim

if __name__ == "__main__":
    serve(__file__)
