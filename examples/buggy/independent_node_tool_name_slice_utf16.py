"""independent_node_tool_name_slice_utf16: `tool_not_found`'s `details.tool` is cut with `String#slice(0, 64)`, which counts UTF-16 units, so a
name whose 64th character is beyond the BMP is cut inside its surrogate pair and the line carries a lone surrogate.

Ships as the everyday JavaScript truncation idiom. Breaks docs/errors.md, tool_not_found: the name cut to 64
characters, counted in Unicode code points, never inside one. Written blind in round 18 (examples/buggy/BLIND18.md).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

OLD = "tool: [...String(name ?? '')].slice(0, 64).join('')"
NEW = "tool: String(name ?? '').slice(0, 64)"

patch.exec_node(__file__, 'executor.mjs', OLD, NEW)
