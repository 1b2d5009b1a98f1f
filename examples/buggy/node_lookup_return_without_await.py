"""node_lookup_return_without_await: the lookup is returned without `await` inside `try`; its failures skip the `catch`.

Behaviour: the ownership lookup is wrapped in a small async helper whose `try` block says `return
this.downstream.send(...)` without `await`. An async function returns the pending promise from inside `try`, so a
rejection (the call's deadline passed during the lookup, the connection was refused or reset) is never seen by the
`catch` that maps it to timeout_not_started / dependency_unavailable (resource_lookup_failed): it reaches execute()
as a raw TimedOut/NotSent/Lost, which answers internal_error (sent: false). The `finally` also runs before the
request is made (ctx.sent reset too early).

Where it ships: every async JS/TS codebase ("return await" inside try/catch; eslint's no-return-await once told
people to drop it); MCP servers on the TypeScript SDK wrapping fetch() in a helper.

Doc sentence it breaks: docs/errors.md, timeout_not_started: "the budget was spent before the resource could be
looked up for authorization ..., the lookup outlived it"; dependency_unavailable: "`resource_lookup_failed`".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = ("    let answer;\n"
       "    try {\n"
       "      answer = await this.downstream.send(tool.entry.downstream.resource, value, ctx);\n"
       "    } catch (error) {\n"
       "      if (error instanceof TimedOut) {\n"
       "        throw new Refusal('timeout_not_started', 'the deadline passed while checking access', { reason: 'deadline_elapsed' });\n"
       "      }\n"
       "      throw new Refusal('dependency_unavailable', 'the system of record could not be reached', { reason: 'resource_lookup_failed' });\n"
       "    } finally {\n"
       "      ctx.sent = false;\n"
       "    }\n")
# BUG: `return` without `await` inside `try`: a rejected lookup skips the `catch`.
NEW = ("    // the lookup, its failures mapped to refusals\n"
       "    const fetchResource = async () => {\n"
       "      try {\n"
       "        return this.downstream.send(tool.entry.downstream.resource, value, ctx);\n"
       "      } catch (error) {\n"
       "        if (error instanceof TimedOut) {\n"
       "          throw new Refusal('timeout_not_started', 'the deadline passed while checking access', { reason: 'deadline_elapsed' });\n"
       "        }\n"
       "        throw new Refusal('dependency_unavailable', 'the system of record could not be reached', { reason: 'resource_lookup_failed' });\n"
       "      } finally {\n"
       "        ctx.sent = false;\n"
       "      }\n"
       "    };\n"
       "    const answer = await fetchResource();\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
