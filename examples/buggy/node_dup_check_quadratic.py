"""node_dup_check_quadratic: duplicate keys are found with `Object.keys(container).includes(key)`, quadratic per object.

Behaviour: the parser detects a repeated member with `Object.keys(container).includes(key)`: correct, but O(n) per
member, so O(n^2) per object. One call whose arguments are a wide object (1 MiB of text holds ~100 000 members)
blocks the single event loop for tens of seconds: that call and every other call in flight miss their deadlines, and
the process may be given up on.

Where it ships: hand-written duplicate-key detection in JS (JSON.parse cannot report duplicates), e.g.
reviver/parser code using keys().includes or indexOf.

Doc sentence it breaks: docs/protocol.md, execute: "budget_ms: ... Turn it into one absolute deadline"; "no result
within the request's budget_ms plus 5 s" is a protocol break; checks.md answer-within-deadline.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "if (Object.prototype.hasOwnProperty.call(top.container, top.key) && duplicate === null) {"
# BUG: O(n) per member, O(n^2) per object.
NEW = "if (duplicate === null && Object.keys(top.container).includes(top.key)) {"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
