"""independent_node_value_numbers_via_number: Already-parsed (`value`) arguments have their numbers normalised through
JavaScript's `Number`, as `JSON.parse` or an SDK hands them over, so `100.0` and `1e2` become the integer literal
`100`.

Doc sentence it breaks: docs/errors.md: an integer field accepts only integer literals, so `100.0`, `1e2`, `-0` are
refused; parsed arguments go through the same checks.

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
        "import path from 'node:path';\n"
        "import { Parser, DecodeError, decodeStrict, toPlain, structuralCheck, canonical, position, TOO_DEEP } from './json.mjs';\n"
        "import { validate, project, typeOf } from './schema.mjs';\n"
    ),
    (
        "  if (a && Object.prototype.hasOwnProperty.call(a, 'value')) {\n"
        '    const v = lineValue.v;\n'
        '    const size = lineValue.size;\n'
    ),
    (
        "  return { error: err('invalid_arguments', { reason: 'not_an_object', found: 'null' }) };\n"
        '}\n'
    ),
)
NEW = (
    (
        "import path from 'node:path';\n"
        "import { Parser, DecodeError, decodeStrict, toPlain, structuralCheck, canonical, position, TOO_DEEP, JNum } from './json.mjs';\n"
        "import { validate, project, typeOf } from './schema.mjs';\n"
    ),
    (
        "  if (a && Object.prototype.hasOwnProperty.call(a, 'value')) {\n"
        '    const v = numbersAsJs(lineValue.v);\n'
        '    const size = lineValue.size;\n'
    ),
    (
        "  return { error: err('invalid_arguments', { reason: 'not_an_object', found: 'null' }) };\n"
        '}\n'
        '\n'
        "// BUG(node_value_numbers_via_number): parsed arguments' numbers are taken as JS numbers (as JSON.parse / an SDK hands them over)\n"
        'function numbersAsJs(x) {\n'
        '  if (x instanceof JNum) return new JNum(String(Number(x.text)));\n'
        '  if (Array.isArray(x)) { for (let i = 0; i < x.length; i++) x[i] = numbersAsJs(x[i]); return x; }\n'
        '  if (x instanceof Map) { for (const [k, y] of x) x.set(k, numbersAsJs(y)); return x; }\n'
        '  return x;\n'
        '}\n'
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
