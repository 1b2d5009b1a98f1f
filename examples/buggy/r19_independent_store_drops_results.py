"""Blind round 19 (second batch): the durable store keeps a success's state but not its result.

A change of the independent Python executor (examples/independent/python/executor.py, through
examples/independent/patch.py). The change: to keep the session's store file small ("results can be large, and the
state is what idempotency needs"), `Store.save` writes each record's outcome without its `result`: an `ok`
outcome is stored as `{"ok": true, "result": null}`. The process's own records, in memory, keep the result, so
every replay in the same process is right; after a restart, a replay of a recorded success answers `ok` with no
result. Kept task answers (`tasks`) are written whole. Where it ships: stores that persist a status row and keep the
payload in a process cache or an LRU.

Doc sentence it breaks: docs/protocol.md, `durable_store`: "your idempotency records survive a restart of your
process"; Crash faults: "With a durable store the retry must find the record and return the real outcome (replay,
or reconciliation by status query ...)"; docs/checks.md `result-matches-downstream` ("a result no request of the
run was answered" fails).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_python  # noqa: E402

if __name__ == "__main__":
    exec_python(
        __file__, "executor.py",
        '            json.dump({"records": self.records, "tasks": self.tasks}, f)\n',
        '            slim = {key: dict(rec, outcome=dict(rec["outcome"], result=None))\n'
        '                    if isinstance(rec.get("outcome"), dict) and rec["outcome"].get("ok") else rec\n'
        '                    for key, rec in self.records.items()}\n'
        '            json.dump({"records": slim, "tasks": self.tasks}, f)\n')
