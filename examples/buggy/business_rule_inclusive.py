#!/usr/bin/env python3
"""Bug: the "at most" business rule is written as a strict bound, so refunding exactly the
refundable amount is refused.

Where it ships: `if amount >= order.refundable_amount: reject` - an off-by-one on an inclusive limit; a full
refund, the most common one, is refused with amount_exceeds_refundable. conformance-app.md:
`refund_order.amount <= order.refundable_amount` is allowed (catalog rule `at_most`).

Expected check: expectations, only in a scenario that refunds exactly the refundable amount (a false refusal
breaks no safety property, so no generic check can see it).
"""

from correct import cp, serve


def check_business_rules(self, tool, arguments, resource):
    for rule in tool.entry.get("business_rules", []):
        if rule["rule"] != "at_most":
            continue
        wanted = arguments.get(rule["argument"])
        limit = (resource or {}).get(rule["attribute"])
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (wanted, limit))
        if numbers and wanted >= limit:  # BUG: "at most" written as "below"
            raise cp.Refusal("business_rejected", "a business rule refused the request", reason=rule["reason"],
                             field=rule["argument"])


cp.Executor.check_business_rules = check_business_rules

if __name__ == "__main__":
    serve(__file__)
