"""The Python example with one legitimate freedom: One JSON audit record per finished call on stderr (request id, tool
as received, code or `ok`, replayed, key, elapsed ms; never arguments).

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`. The change is applied to examples/python/callproof_executor.py by examples/independent/patch.py,
which refuses to start when a piece no longer occurs exactly once.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '        wire.send({"type": "result", "id": message["id"], "envelope": envelope})',
)
NEW = (
    '        wire.send({"type": "result", "id": message["id"], "envelope": envelope})\n        # variant: one structured audit record per finished call, on stderr (never the arguments)\n        audit = {"audit": "call", "request_id": envelope["meta"]["request_id"],\n                 "tool": str(message["call"].get("name"))[:64], "attempt": envelope["meta"]["attempt"],\n                 "outcome": "ok" if envelope["ok"] else envelope["error"]["code"],\n                 "replayed": envelope["meta"]["replayed"], "reconciled": bool(envelope["meta"].get("reconciled")),\n                 "idempotency_key": envelope["meta"].get("idempotency_key"),\n                 "elapsed_ms": int((time.monotonic() - received) * 1000)}\n        log(json.dumps(audit, sort_keys=True))',
)

if __name__ == "__main__":
    patch.exec_example(__file__, OLD, NEW)
