#!/usr/bin/env python3
"""send_email: the recipient address is normalised (stripped, lowercased) before it is sent.

Bug: POST /emails carries `to` lowercased and stripped, not as the model wrote it.
Where it ships: email normalisation helpers written for dedupe and blocklists, applied to the outgoing payload.
Breaks: docs/protocol.md "Arguments go downstream exactly as decoded: no trimming, case folding or Unicode
normalisation of their strings".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Downstream, "send",
             "        headers = self.headers(method, ctx, key, remaining)\n",
             "        headers = self.headers(method, ctx, key, remaining)\n"
             "        if template == \"POST /emails\" and isinstance(arguments.get(\"to\"), str):\n"
             "            arguments = dict(arguments, to=arguments[\"to\"].strip().lower())\n")

if __name__ == "__main__":
    serve(__file__)
