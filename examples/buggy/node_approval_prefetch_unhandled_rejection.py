"""node_approval_prefetch_unhandled_rejection: the lookup is sent before the approval check, unawaited when it refuses.

Behaviour: to save a round trip, the ownership lookup is started before the approval check and awaited after it.
When the approval check refuses (approval_required), the function throws and the lookup promise is left with no
handler. If that lookup later rejects (it outlives the call's deadline, or its connection is refused or reset), Node
20 treats it as an unhandled rejection and kills the process: calls still in flight are never answered and the next
line finds no executor.

Where it ships: latency-minded agent tool layers that start independent I/O early ("kick off the fetch, then
validate") and await it later; the unhandled rejection only bites when the validation throws first.

Doc sentence it breaks: docs/protocol.md, "Protocol breaks": "closing stdout or exiting while requests are open";
"result: Exactly one per execute". (A refused call sending the lookup is itself allowed: checks.md
rejection-has-no-effect.)

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = ("    if (tool.entry.requires_approval) this.checkApproval(tool, hash, auth);\n"
       "    const binding = tool.entry.resource;\n"
       "    if (!binding || typeof value[binding.argument] !== 'string') return null;\n"
       "    if (ctx.remainingMs() <= 0) {\n"
       "      throw new Refusal('timeout_not_started', 'the deadline passed before access could be checked', { reason: 'deadline_elapsed' });\n"
       "    }\n"
       "    let answer;\n"
       "    try {\n"
       "      answer = await this.downstream.send(tool.entry.downstream.resource, value, ctx);\n")
# BUG: the lookup is sent before the approval check; a refusal leaves its promise without a handler.
NEW = ("    const binding = tool.entry.resource;\n"
       "    const bound = Boolean(binding) && typeof value[binding.argument] === 'string';\n"
       "    // Start the ownership lookup now, so that its round trip overlaps the approval check.\n"
       "    const lookup = bound && ctx.remainingMs() > 0 ? this.downstream.send(tool.entry.downstream.resource, value, ctx) : null;\n"
       "    if (tool.entry.requires_approval) this.checkApproval(tool, hash, auth);\n"
       "    if (!bound) return null;\n"
       "    if (lookup === null) {\n"
       "      throw new Refusal('timeout_not_started', 'the deadline passed before access could be checked', { reason: 'deadline_elapsed' });\n"
       "    }\n"
       "    let answer;\n"
       "    try {\n"
       "      answer = await lookup;\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
