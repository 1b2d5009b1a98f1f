"""The independent Node executor with one legitimate freedom: canonical JSON compares keys code point by code point
(`codePointAt` walk, a lone surrogate counted as U+FFFD) instead of `Buffer.compare` on UTF-8.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    '\nexport function canonical(v) {',
    "  entries.sort((a, b) => Buffer.compare(Buffer.from(a[0], 'utf8'), Buffer.from(b[0], 'utf8')));",
)
NEW = (
    '\n// Variant nv_canon_codepoint_sort: UTF-8 byte order is code point order, so compare code points directly\n// (a lone surrogate, which UTF-8 cannot encode, compares as U+FFFD, as Buffer.from would write it).\nfunction compareCodePoints(x, y) {\n  let i = 0, j = 0;\n  while (i < x.length && j < y.length) {\n    let a = x.codePointAt(i), b = y.codePointAt(j);\n    i += a > 0xffff ? 2 : 1; j += b > 0xffff ? 2 : 1;\n    if (a >= 0xd800 && a <= 0xdfff) a = 0xfffd;\n    if (b >= 0xd800 && b <= 0xdfff) b = 0xfffd;\n    if (a !== b) return a < b ? -1 : 1;\n  }\n  return (x.length - i) - (y.length - j) === 0 ? 0 : (i < x.length ? 1 : -1);\n}\n\nexport function canonical(v) {',
    '  entries.sort((a, b) => compareCodePoints(a[0], b[0]));',
)

if __name__ == "__main__":
    patch.exec_node(__file__, "json.mjs", OLD, NEW)
