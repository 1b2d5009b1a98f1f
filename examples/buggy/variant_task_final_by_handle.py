#!/usr/bin/env python3
"""Correct, written another way: a task's first final poll answer is kept per handle alone (the example keys it
by tenant and handle), and only after the poll was authorized against the job's own tenant and owner; the
kept answer is copied, never shared, on every later poll.

Where it ships: a task cache keyed by the downstream's handle, which is unique per job.

Permitted by docs/protocol.md (Task tools): "the first final poll answer of a handle is kept and answered to
every later poll", and docs/conformance-app.md: "an executor keeps the **first final answer** ... and answers
it to every later poll of that handle". Authorization still comes first (the handle's resource is the job).

Expected: passes every check under --profile all.
"""

import copy

from correct import cp, serve


class ByHandle(dict):
    """The example's task_finals, keyed by (tenant, handle): this one drops the tenant."""

    def get(self, key, default=None):
        found = dict.get(self, key[1], default)
        return copy.deepcopy(found)

    def setdefault(self, key, value):
        return copy.deepcopy(dict.setdefault(self, key[1], value))


ORIGINAL_INIT = cp.Executor.__init__


def init(self, hello):
    ORIGINAL_INIT(self, hello)
    self.task_finals = ByHandle()


cp.Executor.__init__ = init

if __name__ == "__main__":
    serve(__file__)
