"""node_keepalive_agent_sent_flag: requests use Node's default (keep-alive) agent; "sent" still waits for 'connect'.

Behaviour: `agent: false` is dropped, so requests go through http.globalAgent, which keeps connections alive by
default since Node 19. The executor still marks a request as sent on its socket's `connect` event, which never
fires on a reused socket. A side-effecting request that reuses the ownership lookup's connection is then believed
never sent: a dropped answer is dependency_unavailable (not_sent), a late one timeout_not_started, both saying
nothing was applied, instead of timeout_unknown.

Where it ships: Node HTTP clients that enable connection reuse (or move to Node >= 19, where the global agent keeps
connections alive) while keeping socket-level 'connect' bookkeeping.

Doc sentence it breaks: docs/errors.md dependency_unavailable "a request that was sent ... is never reported as not
sent"; timeout_unknown "the connection was lost after sending"; docs/protocol.md "no answer by the deadline, or the
connection closed after sending: tools with side effects: `timeout_unknown`".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "method, path: target, headers, agent: false });"
NEW = "method, path: target, headers }); // BUG: default agent (keep-alive): no 'connect' on a reused socket"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
