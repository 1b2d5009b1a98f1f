#!/usr/bin/env python3
"""Correct, written another way: a replay never carries `meta.reconciled`, even when the stored outcome was
established by a reconciliation: the answer being given now comes from the store, not from asking the
downstream. The answer that did the reconciling carries it, as in the example.

Where it ships: executors that compute `meta` for each answer from what that answer did, and store only the
result or error.

Permitted by docs/envelope.schema.json (`reconciled`): "Present (and true) only when the outcome was established
by asking the downstream after an unknown outcome", read per answer: a replay's outcome was established by the
store.

Expected: passes every check under --profile all (measured 2026-12-03: no scenario pins `reconciled` on a
replay).
"""

from correct import cp, serve

ORIGINAL_REPLAY = cp.replay


def replay(stored, meta):
    answer = ORIGINAL_REPLAY(stored, meta)
    answer["meta"].pop("reconciled", None)
    return answer


cp.replay = replay

if __name__ == "__main__":
    serve(__file__)
