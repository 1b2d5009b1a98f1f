#!/usr/bin/env python3
"""refund_order: `amount: null` is resolved by the executor to the refundable amount its own lookup read.

Bug: a refund with `amount: null` ("refund the whole refundable amount") goes to POST /refunds with `amount` set
to the `refundable_amount` of the order the ownership lookup loaded, instead of the `null` the model sent.
Where it ships: refund tools built on a payment SDK whose request type has a required integer amount, so the team
"resolves" the optional value from the order it already has in hand.
Breaks: docs/protocol.md "`POST` and `PUT` send the arguments as a JSON body. Arguments go downstream exactly as
decoded"; docs/conformance-app.md "`amount: null` refunds the whole refundable amount".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Executor, "run_decoded",
             "            self.check_business_rules(tool, arguments, resource)\n",
             "            self.check_business_rules(tool, arguments, resource)\n"
             "            if tool.name == \"refund_order\" and arguments.get(\"amount\") is None and resource:\n"
             "                arguments = dict(arguments, amount=resource.get(\"refundable_amount\"))\n")

if __name__ == "__main__":
    serve(__file__)
