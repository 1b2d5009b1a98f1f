r"""independent_body_read_not_exact: the downstream body is read with `read(n)`, not `readexactly(n)`.

Behaviour: the independent executor's HTTP client reads a `Content-Length` body with `StreamReader.read(cl)`, which
returns what is buffered, up to `cl` bytes, instead of `readexactly(cl)`. A success body that arrives in two reads
is cut after the first, fails to parse, and the call answers `output_invalid` for a downstream success.

Where it ships: hand-written asyncio HTTP clients in agent tool runners; it passes every test whose answers arrive
in one segment.

Doc sentence it breaks: docs/errors.md `output_invalid`: only "the downstream's success body arrived whole but is
not JSON" is `output_invalid` (a body that never arrived whole is `timeout_unknown`).

Written blind in round 9 (BLIND9.md), missed then: the author ran a suite whose mock wrote each body in one
segment. Caught since the `body_in_two_parts` fault splits an answer (downstream/answer_in_two_parts).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.py"
OLD = "                    body = await reader.readexactly(cl)\n"
NEW = (
    "                    # BUG(body_read_not_exact): StreamReader.read(n) returns *up to* n bytes (what is buffered),\n"
    "                    # not exactly n, so a body split across TCP segments is cut and then judged \"not JSON\".\n"
    "                    # Breaks docs/errors.md output_invalid: only \"the downstream's success body arrived whole but\n"
    "                    # is not JSON\" is output_invalid (and docs/protocol.md \"2xx, JSON body -> ok\"). Ships in\n"
    "                    # hand-rolled asyncio HTTP clients of agent tool runners.\n"
    "                    body = await reader.read(cl)\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
