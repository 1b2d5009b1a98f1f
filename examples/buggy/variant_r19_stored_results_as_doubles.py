"""Correct variant: the store keeps numbers as doubles, so answers read from it say `30.0` where the first said `30`.

The change: the outcome the executor records and the final poll answer it keeps are written to a store whose
numbers are doubles: every number of the stored `result` becomes a float. The first answer is the one the call
built (`"amount": 30`); every replay, and every poll answered from the kept final answer, is read from the store
and says `"amount": 30.0` (`"records": 100.0`). Same values, another spelling on later answers.

Where it ships: records kept in a document store or a scripting layer with one number type (MongoDB documents
written as `double`, Redis with Lua `cjson`, a DynamoDB `N` read back through a float-only SDK path, SQLite JSON1
with `REAL`): the write keeps the value, the read gives back a float.

Doc sentences relied on: docs/checks.md `result-matches-downstream`: "values are equal, numbers by value (`12` and
`12.0` are one number)" and "A replay, a reconciliation, a kept task answer or a cache may answer what another call
read"; docs/protocol.md, Crash faults: "A kept final task answer is answered from your store"; docs/checks.md
`output-invalid-withheld`: "`12.0` is an integer".
"""

from correct import changed_copy, cp, serve


def as_doubles(value):
    if isinstance(value, dict):
        return {k: as_doubles(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_doubles(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def stored_form(outcome):
    if isinstance(outcome, dict) and outcome.get("ok") is True:
        return dict(outcome, result=as_doubles(outcome.get("result")))
    return outcome


cp.as_doubles = as_doubles
_compare_and_set = cp.Executor.compare_and_set


def compare_and_set(self, key, version, state, outcome, **changes):
    return _compare_and_set(self, key, version, state, stored_form(outcome), **changes)


cp.Executor.compare_and_set = compare_and_set

# The first final poll answers what it read; the kept copy (a later poll's answer) is the store's.
changed_copy(
    cp.Executor, "run_decoded",
    "                result = self.task_finals.setdefault(final_key, result)",
    "                stored = as_doubles(result)\n"
    "                kept_now = self.task_finals.setdefault(final_key, stored)\n"
    "                if kept_now is not stored:\n"
    "                    result = kept_now",
)

if __name__ == "__main__":
    serve(__file__)
