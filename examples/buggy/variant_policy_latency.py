"""VARIANT: each call spends 250 ms in an (external) authorization decision before its resource lookup.

Behaviour: after decoding, every call waits 250 ms (standing in for a round trip to a policy service) before the
authorization checks and the lookup, but never past its deadline: when the deadline comes first the call is
refused `timeout_not_started` (`deadline_elapsed`), before any lookup, claim or request, as the example refuses a
call whose budget is spent before the lookup. Everything after that is the example, with 250 ms less budget.

Where it ships: agent gateways that ask OPA, Cedar/Amazon Verified Permissions or an in-house policy service over the
network for every tool call.

Relies on docs/protocol.md: the call's deadline is the only time bound ("One deadline per call: refuse to start
after it, bound every request by it"); docs/errors.md timeout_not_started: "the budget was spent before the resource
could be looked up for authorization (then no idempotency record exists yet)"; checks.md (timing audit): "a correct
executor answers within its budget".
"""

import time

from correct import cp, serve

POLICY_MS = 250
_authorize = cp.Executor.authorize


def authorize(self, tool, arguments, arguments_hash, auth, ctx):
    # VARIANT: the policy decision's latency, bounded by the call's deadline.
    wait = min(POLICY_MS, ctx.remaining_ms()) / 1000
    time.sleep(wait)
    if ctx.remaining_ms() <= 0:
        raise cp.Refusal("timeout_not_started", "the deadline passed before access could be checked",
                         reason="deadline_elapsed")
    return _authorize(self, tool, arguments, arguments_hash, auth, ctx)


cp.Executor.authorize = authorize

if __name__ == "__main__":
    serve(__file__)
