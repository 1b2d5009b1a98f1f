"""independent_node_rule_return_inside_foreach: Business rules run in `forEach`, whose callback's `return` leaves only
the callback: the rule's refusal is lost and the refund is still sent.

Doc sentence it breaks: docs/conformance-app.md: check business rules before sending (`amount <=
refundable_amount`).

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
        '    // 4. business rules\n'
        '    for (const rule of tool.business_rules || []) {\n'
        "      if (rule.rule === 'at_most') {\n"
    ),
    (
        '      }\n'
        '    }\n'
        '\n'
    ),
)
NEW = (
    (
        '    // 4. business rules\n'
        '    // BUG(node_rule_return_inside_foreach): `return` inside forEach leaves only the callback\n'
        '    (tool.business_rules || []).forEach((rule) => {\n'
        "      if (rule.rule === 'at_most') {\n"
    ),
    (
        '      }\n'
        '    });\n'
        '\n'
    ),
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
