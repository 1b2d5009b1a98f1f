r"""independent_startup_drops_in_progress: at startup the store drops records left IN_PROGRESS.

Behaviour: loading the store file, the executor deletes every IN_PROGRESS record as a stale lock of a process that
died, so after a crash the retry finds no record and sends the request again without a status query.

Where it ships: job and lock tables that clear their locks on boot.

Doc sentence it breaks: docs/protocol.md: "An `IN_PROGRESS` record whose lease (deadline + 2 s) ran out is unknown,
not absent", and its crash faults: "With a durable store the retry must find the record and return the real
outcome".

Written blind in round 9 (BLIND9.md), caught then by the crash scenarios.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.py"
OLD = "        except FileNotFoundError:\n"
NEW = (
    "            # BUG(startup_drops_in_progress): \"startup recovery\": a claim left IN_PROGRESS belongs to a process\n"
    "            # that died, so it is dropped as a stale lock and the key is free again. Breaks docs/protocol.md: \"An\n"
    "            # IN_PROGRESS record whose lease (deadline + 2 s) ran out is unknown, not absent\", and Crash faults:\n"
    "            # \"the retry must find the record and return the real outcome (replay, or reconciliation by status\n"
    "            # query)\". Ships in job/lock tables that clear their locks on boot.\n"
    "            self.records = {k: r for k, r in self.records.items() if r.get(\"state\") != \"IN_PROGRESS\"}\n"
    "        except FileNotFoundError:\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
