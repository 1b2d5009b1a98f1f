"""independent_node_task_cache_map_not_serialized: The kept final task answers live in a `Map` inside the store's data;
`JSON.stringify` writes a `Map` as `{}`, so they are lost on a restart (the records survive).

Doc sentence it breaks: docs/protocol.md: the first final poll answer of a handle is kept and answered to every
later poll (durable stores keep it across a restart).

Written blind in round 10 (examples/buggy/BLIND10.md) as a whole copy of `examples/independent/node/` with one
change; here the change is the piece of `executor.mjs` it replaces (`examples/independent/patch.py`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    (
        '    if (changed) this.flush();\n'
        '  }\n'
    ),
    (
        '  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }\n'
        '  getTask(k) { return this.data.tasks[k]; }\n'
        '  putTask(k, v) { this.data.tasks[k] = v; this.flush(); }\n'
        '}\n'
    ),
)
NEW = (
    (
        '    if (changed) this.flush();\n'
        '    // BUG(node_task_cache_map_not_serialized): kept task answers in a Map for fast lookup; JSON.stringify(Map) is {}\n'
        '    this.data.tasks = new Map(Object.entries(this.data.tasks || {}));\n'
        '  }\n'
    ),
    (
        '  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }\n'
        '  getTask(k) { return this.data.tasks.get(k); }\n'
        '  putTask(k, v) { this.data.tasks.set(k, v); this.flush(); }\n'
        '}\n'
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
