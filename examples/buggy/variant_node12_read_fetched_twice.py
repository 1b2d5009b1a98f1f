"""Correct variant of the independent Node executor: a read tool whose ownership lookup is the same GET as its
own request (get_order, task_status) sends its own request again after the lookup instead of reusing the lookup's
answer: two reads, as the Python example does.

docs/protocol.md: "A read is any `GET`: a read tool's request, the ownership lookup of `downstream.resource`, a
status query." and "Resources for authorization come from `downstream.resource`".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = ("const same = ds.resource && ds.resource === ds.invoke && resp;",)
NEW = ("const same = false; // the lookup authorized the call; the tool's own read comes next",)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
