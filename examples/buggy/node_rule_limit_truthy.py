"""node_rule_limit_truthy: the at_most business rule is skipped when the resource's attribute is falsy.

Behaviour: checkRules guards with `if (!limit) continue;` meaning "the attribute was not loaded", but 0 is falsy,
so an order whose refundable_amount is 0 lets any refund amount through to the payment service.

Where it ships: JS guard clauses that test presence by truthiness (`if (!order.refundable_amount) return;`),
one of the commonest review misses in JavaScript and TypeScript.

Doc sentence it breaks: docs/conformance-app.md "Check business rules before sending:
`refund_order.amount ≤ order.refundable_amount`"; docs/errors.md business_rejected "the tool's own rule (for example
an amount above the order's refundable amount) before anything is sent".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "      if (wanted instanceof Num && typeof limit === 'number' && wanted.value > limit) {"
NEW = ("      if (!limit) continue; // BUG: 'attribute not loaded' by truthiness: a limit of 0 skips the rule\n" + OLD)

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
