#!/usr/bin/env python3
"""Correct, written another way: a read (`get_order`, `get_weather`, `task_status`: risk `read`) that failed with
nothing applied (`dependency_unavailable`: not sent, 5xx, no answer) is tried once more inside the call, after
20-80 ms of random jitter, if at least 300 ms of the call's deadline are left; its answer is the second try's.
Side-effecting tools are never retried inside the executor.

Where it ships: HTTP clients that retry idempotent reads with jittered backoff (urllib3's Retry, the AWS SDKs,
gRPC retry policies for idempotent methods).

Permitted by docs/errors.md (dependency_unavailable): "A read-only tool has nothing to be unsure about, so a read
whose answer never came (deadline or lost connection) is reported here, as safe to repeat" and
docs/conformance-app.md: "a read changes nothing, so it may simply be read again". The retry stays inside the
call's one deadline.

Expected: passes every check under --profile all, unless a scenario pins the first failure of a read.

Measured 2026-12-03: failed `redirect/read_redirect_is_retryable` (`expectations`, step 1 answered ok after the
retried read), the one scenario whose read fault fired once. docs/protocol.md now says a call may read again after
an answer that brought nothing to read, and the scenarios that fault a read fault every read of the step
(`times = 3`): the variant passes them.
"""

import random
import time

from correct import cp, serve

ORIGINAL_CALL_TOOL = cp.Executor.call_tool
MIN_LEFT_MS = 300


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if (not tool.side_effect and isinstance(result, cp.Refusal) and result.code == "dependency_unavailable"
            and ctx.remaining_ms() >= MIN_LEFT_MS):
        time.sleep(random.uniform(0.020, 0.080))
        ctx.sent = False
        state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
