"""Correct variant of the independent Python executor: back-pressure down to one call at a time.

What it does differently: the executor reads the next stdin line only once the call it is running has been
answered, so at most one call is in flight (the unchanged executor starts a task per line and reads on). Each call
still gets its own deadline from when its line was read.

Where it ships: simple single-threaded tool servers (a `for line in sys.stdin: answer(handle(line))` loop), and
executors configured with a concurrency limit of 1 (the reference's `--max-in-flight 1`).

Doc relied on: docs/protocol.md, execute: "`budget_ms`: the time budget, counted from when you read the line. ...
You may read lines only as fast as you run them (back-pressure, down to one call at a time): the harness cannot
see when you read a line, so for a request sent while others were open it counts the budget from the latest answer
to another request that came before this one's". Also docs/checks.md answer-within-deadline: "an executor with
back-pressure (the reference's `--max-in-flight`, down to 1) reads a line only once it has answered an earlier one."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_python  # noqa: E402

exec_python(
    __file__, "executor.py",
    """            t = asyncio.ensure_future(self.handle(rid, msg, read_at))
            self.tasks.add(t)
            t.add_done_callback(self.tasks.discard)
""",
    """            t = asyncio.ensure_future(self.handle(rid, msg, read_at))
            self.tasks.add(t)
            t.add_done_callback(self.tasks.discard)
            await asyncio.wait([t])  # back-pressure: the next line is read once this call is answered
""",
)
