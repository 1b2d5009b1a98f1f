"""independent_node_body_lossy_tostring: downstream bodies are decoded with `Buffer#toString('utf8')`, which replaces bytes that are not UTF-8 with
U+FFFD, instead of a fatal TextDecoder: a 2xx body that is not UTF-8 is parsed and passed on as a result.

Ships wherever Node code reads a body the default way. Breaks docs/protocol.md: bodies are JSON in UTF-8, and a
2xx body that is not JSON (a byte that is not UTF-8 makes it so) is `output_invalid`. Written blind in round 18 (examples/buggy/BLIND18.md).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

OLD = "const text = new TextDecoder('utf-8', { fatal: true }).decode(buf);"
NEW = "const text = buf.toString('utf8');"

patch.exec_node(__file__, 'executor.mjs', OLD, NEW)
