"""Correct variant: recorded outcomes and kept poll answers live in the store as canonical JSON text.

The change: every outcome the executor records (a finished execution, a reconciliation, the exhausted budget)
and every kept final poll answer is written to the store as text, in the canonical JSON of docs/protocol.md
(members sorted by their UTF-8 bytes, no whitespace, a float with an integral value as an integer), and every
answer that comes from the store is parsed back from that text: replays, kept poll answers, and the recording
call's own answer (it answers what it stored, not the object it built). Member order and number spelling of those
answers are the canonical text's, not the downstream body's.

Where it ships: an executor whose record store is a text column (SQLite/PostgreSQL `TEXT`, a Redis string) and
that serializes records with the same canonical writer it already has for the approval hash, so that records
compare byte for byte; answering from the stored text guarantees a replay says exactly what the first answer said.

Doc sentences relied on: docs/protocol.md, Crash faults: "A kept final task answer is answered from your store";
docs/protocol.md, Canonical JSON: "a float with an integral value within ±2^53 as an integer (`100.0` → `100`)";
docs/checks.md `result-matches-downstream`: "values are equal, numbers by value (`12` and `12.0` are one
number)". RFC 8259: object members are unordered.
"""

import json

from correct import changed_copy, cp, serve

_compare_and_set = cp.Executor.compare_and_set


def compare_and_set(self, key, version, state, outcome, **changes):
    if isinstance(outcome, dict):
        outcome = cp.canonical(outcome)  # stored as text
    return _compare_and_set(self, key, version, state, outcome, **changes)


_replay = cp.replay


def replay(stored, meta):
    if isinstance(stored, str):
        stored = json.loads(stored)  # read back from the stored text
    return _replay(stored, meta)


cp.Executor.compare_and_set = compare_and_set
cp.replay = replay

changed_copy(
    cp.Executor, "run_decoded",
    ("                return succeed(kept, meta)",
     "                result = self.task_finals.setdefault(final_key, result)",
     "            self.compare_and_set(held[0], held[1], state, envelope)"),
    ("                return succeed(json.loads(kept), meta)",
     "                result = json.loads(self.task_finals.setdefault(final_key, canonical(result)))",
     "            stored = canonical(envelope)\n"
     "            self.compare_and_set(held[0], held[1], state, stored)\n"
     "            envelope = json.loads(stored)"),
)

if __name__ == "__main__":
    serve(__file__)
