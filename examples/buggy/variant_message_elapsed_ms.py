"""Correct variant: every error message ends with the time the executor spent on the call.

What it does differently: the example's messages are fixed sentences. This variant appends " (after N ms)" to the
`message` of every error envelope it answers, N being the whole milliseconds between reading the call and
answering it. Codes, flags and details are untouched; the stored outcome keeps the message without the time, and
each answer (a replay too) gets its own.

Where it ships: frameworks and gateways that decorate error text with timing ("request failed after 12 ms"),
e.g. HTTP client wrappers and tool-calling middlewares that add latency to what the model sees.

Docs relied on: docs/errors.md: "Only `message` and `details` vary from call to call." and "Match on `code` and
`details`, never on `message`. The message is a sentence for people; its wording may change in any release. It
never contains secrets, tokens, stack traces, SQL, host names, file paths or a downstream's raw answer." (a
duration is none of those).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from correct import cp, serve  # noqa: E402

_execute = cp.Executor.execute


def execute(self, message, received):
    envelope = _execute(self, message, received)
    if not envelope.get("ok") and isinstance(envelope.get("error"), dict):
        elapsed = int((time.monotonic() - received) * 1000)
        envelope = dict(envelope)
        envelope["error"] = dict(envelope["error"])
        envelope["error"]["message"] = "%s (after %d ms)" % (envelope["error"]["message"], elapsed)
    return envelope


cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
