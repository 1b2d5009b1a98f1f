#!/usr/bin/env python3
"""Correct, written another way: one worker thread. Lines are still read as they arrive (each call's deadline
counts from when its line was read), but calls run one at a time, in the order they came; a call that waits
behind another spends its own budget waiting, and answers truthfully for the time it has left.

Where it ships: single-threaded executors (an asyncio loop that awaits each call, a worker with a queue of one,
a Node handler that serialises tool calls per session).

Permitted by docs/protocol.md: "Exactly one per execute, whenever the call finishes; results of different
requests may come in any order" (which allows, not requires, answering out of order), "`budget_ms`: the time
budget, counted from when you read the line", and the reference's own back-pressure ("at most
`--max-in-flight` calls run at once ... The harness sees slower answers, never refusals"). Nothing requires a
duplicate to overlap the first call; docs/checks.md: "whether the others wait or replay, is scheduling; the
checks accept either".

Expected: passes every check under --profile all. A false-positive probe for bursts (their calls never overlap
here: the first executes, the others replay or reconcile), for attribution by time window, and for
answer-within-deadline (every call answers within its budget counted from its line).
"""

import concurrent.futures

from correct import cp, serve

ORIGINAL_POOL = concurrent.futures.ThreadPoolExecutor


class OneWorker(ORIGINAL_POOL):
    def __init__(self, max_workers=None, *args, **kwargs):
        super().__init__(1, *args, **kwargs)


cp.ThreadPoolExecutor = OneWorker

if __name__ == "__main__":
    serve(__file__)
