"""The Python example with one legitimate freedom: The ownership lookup (`GET /orders/{id}`, `GET /accounts/{id}`, ...)
is sent once more, within the deadline, after an answer that brought nothing to read (not sent, lost, 5xx).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '        try:\n            status, _, body = self.downstream.send(tool.downstream["resource"], arguments, ctx)\n        except TimedOut:',
)
NEW = (
    '        try:\n            # variant: the lookup is a read; after an answer that brought nothing to read (not sent, lost, 5xx)\n            # it is sent once more, within the call\'s deadline\n            for round_number in (1, 2):\n                try:\n                    status, _, body = self.downstream.send(tool.downstream["resource"], arguments, ctx)\n                except (NotSent, Lost):\n                    if round_number == 2 or ctx.remaining_ms() <= 0:\n                        raise\n                    continue\n                if 500 <= status < 600 and round_number == 1 and ctx.remaining_ms() > 0:\n                    continue\n                break\n        except TimedOut:',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
