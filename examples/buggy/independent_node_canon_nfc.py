"""independent_node_canon_nfc: canonical JSON runs every string through `normalize('NFC')` before escaping, so `ü` and `u` + U+0308 hash alike:
two different emails without a business request id share a key and the second is answered as a replay, never sent.

Ships in "stable hash" and signing helpers that normalise strings before hashing. Breaks docs/protocol.md,
Canonical JSON: strings with the code points the arguments gave (no Unicode normalisation). Written blind in round 18 (examples/buggy/BLIND18.md).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

OLD = 'export function canonString(s) {\n  let out = \'"\';'
NEW = 'export function canonString(s) {\n  s = s.normalize(\'NFC\');\n  let out = \'"\';'

patch.exec_node(__file__, 'json.mjs', OLD, NEW)
