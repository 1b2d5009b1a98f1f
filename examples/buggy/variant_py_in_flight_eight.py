"""The Python example with one legitimate freedom: At most 8 calls run at once; the reader stops reading stdin until
one finishes (semaphore acquired before each `readline`, released after the answer is written).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '    with ThreadPoolExecutor(max_workers=64) as pool:\n        for line in sys.stdin:\n            received = time.monotonic()\n            try:\n                message = json.loads(line)\n                if message.get("type") != "execute":\n                    raise ValueError("unexpected message type %r" % message.get("type"))\n            except Exception as error:\n                wire.send({"type": "error", "message": "cannot read the message: %s" % error})\n                continue\n            pool.submit(serve, message, received)',
)
NEW = (
    '    # variant: at most 8 calls in flight; the next line is read only once a slot is free (back-pressure)\n    slots = threading.BoundedSemaphore(8)\n\n    def serve_and_release(message, received):\n        try:\n            serve(message, received)\n        finally:\n            slots.release()\n\n    with ThreadPoolExecutor(max_workers=8) as pool:\n        while True:\n            slots.acquire()\n            line = sys.stdin.readline()\n            if not line:\n                slots.release()\n                break\n            received = time.monotonic()\n            try:\n                message = json.loads(line)\n                if message.get("type") != "execute":\n                    raise ValueError("unexpected message type %r" % message.get("type"))\n            except Exception as error:\n                slots.release()\n                wire.send({"type": "error", "message": "cannot read the message: %s" % error})\n                continue\n            pool.submit(serve_and_release, message, received)',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
