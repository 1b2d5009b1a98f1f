"""The independent Node executor with one legitimate freedom: the deadline is stamped when the line comes off stdin (in
the `data` handler) and passed along with the queued line, instead of when `execute()` starts.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    'async function execute(msg, lineValue) {\n  const readAt = Date.now();',
    'function handleLine(buf) {',
    '    execute(msg, lineValue)',
    '    if (line.length > 0) queue.push(Buffer.from(line));',
)
NEW = (
    'async function execute(msg, lineValue, readAt = Date.now()) {\n  // Variant nv_deadline_from_read_time: readAt is when the line came off stdin',
    'function handleLine(item) {\n  const buf = item.buf;',
    '    execute(msg, lineValue, item.at)',
    '    if (line.length > 0) queue.push({ buf: Buffer.from(line), at: Date.now() });',
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
