"""The independent Python executor with one legitimate freedom: it runs at most 4 calls at
once; the read loop waits for a free slot before it reads on, and a call's budget starts when it gets its slot.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '''        self.open = set()
        self.tasks = set()''',
    '''            self.open.add(rid)
            t = asyncio.ensure_future(self.handle(rid, msg, read_at))''',
    '''        self.open.discard(rid)
        self.send({"type": "result", "id": rid, "envelope": env})''',
)
NEW = (
    '''        self.open = set()
        self.tasks = set()
        self.slots = asyncio.Semaphore(4)  # variant: at most 4 calls in flight''',
    '''            await self.slots.acquire()  # variant: no further line is read until a slot is free
            read_at = now_ms()
            self.open.add(rid)
            t = asyncio.ensure_future(self.handle(rid, msg, read_at))''',
    '''        self.open.discard(rid)
        self.send({"type": "result", "id": rid, "envelope": env})
        self.slots.release()''',
)

if __name__ == "__main__":
    patch.exec_python(__file__, "executor.py", OLD, NEW)
