#!/usr/bin/env python3
"""Correct, written another way: the process takes 2.5 s to start before it reads its first line (a JVM
warming up, a cold Python import of a large framework, a container's entrypoint).

Where it ships: Java and Kotlin executors on a cold JVM, Python services importing heavy SDKs, anything started
through `docker run`.

Permitted by docs/protocol.md: "Your first line, within 20 s of `hello`": the harness waits 20 s for
`capabilities`, and nothing says how soon after start the process reads `hello`. Calls are timed from when
they are read ("`budget_ms`: the time budget, counted from when you read the line"), and none is sent before
`capabilities`.

Expected: passes every check under --profile all.
"""

import time

from correct import serve

START_S = 2.5

if __name__ == "__main__":
    time.sleep(START_S)
    serve(__file__)
