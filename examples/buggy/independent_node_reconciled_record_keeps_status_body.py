"""Independent Node executor with one bug: a `completed` status answer is recorded whole as the result, so the
reconciled call and every replay answer {status, result} instead of the tool's result.

Where it ships: a status client that returns the parsed body where its caller expected the body's result member.

Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = "          settle('SUCCEEDED', { result: chk.result });"
NEW = "          settle('SUCCEEDED', { result: body });"

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
