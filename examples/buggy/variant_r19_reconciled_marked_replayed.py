"""Correct variant: a reconciled answer is served from the record it just wrote, through the replay path.

The change: when the status query after an unknown outcome answers `completed` (or `rejected`), the executor
records the outcome and then answers it as every stored outcome is answered, through `replay`: the envelope carries
`meta.replayed = true` beside `meta.reconciled = true`. The outcome is the earlier attempt's (its request is the
one that committed or was refused), now stored; the executor calls it a replay of that attempt.

Where it ships: executors with one "answer from the record" path (`answer_from_record(record, meta)`), which the
reconciler reuses after writing the record, instead of building a second kind of answer.

Doc sentences relied on: docs/checks.md `replayed-means-recorded`: "Not judged: ... a reconciled answer
(`meta.reconciled`), whose outcome the executor has just established and may call the earlier attempt's";
docs/envelope.schema.json, `meta.replayed`: "True when the answer is the stored outcome of an earlier attempt";
docs/protocol.md, Crash faults: "An outcome you reconciled and recorded is a finished operation: a later retry may
replay it, with `meta.reconciled` repeated or not".
"""

from correct import changed_copy, cp, serve

changed_copy(
    cp.Executor, "reconcile",
    ("            self.compare_and_set(key, version, state, envelope)\n            return envelope",
     "            self.compare_and_set(key, version, \"FAILED_FINAL\", envelope)\n            return envelope"),
    ("            if self.compare_and_set(key, version, state, envelope):\n"
     "                return replay(envelope, meta)\n"
     "            return envelope",
     "            if self.compare_and_set(key, version, \"FAILED_FINAL\", envelope):\n"
     "                return replay(envelope, meta)\n"
     "            return envelope"),
)

if __name__ == "__main__":
    serve(__file__)
