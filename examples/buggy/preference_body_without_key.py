#!/usr/bin/env python3
"""set_preference: the PUT body carries only the value, the key being in the path already.

Bug: PUT /preferences/{key} sends `{"value": ...}` instead of the call's arguments `{"key": ..., "value": ...}`.
Where it ships: the REST habit of putting the resource id in the path and only the representation in the body.
Breaks: docs/conformance-app.md "It takes the call's arguments as the body (docs/protocol.md): a `POST` or `PUT`
body without a member the tool's input schema requires ... is refused with 422 (`missing_field`)".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Downstream, "send",
             "        headers = self.headers(method, ctx, key, remaining)\n",
             "        headers = self.headers(method, ctx, key, remaining)\n"
             "        if template.startswith(\"PUT /preferences/\"):\n"
             "            arguments = {\"value\": arguments.get(\"value\")}\n")

if __name__ == "__main__":
    serve(__file__)
