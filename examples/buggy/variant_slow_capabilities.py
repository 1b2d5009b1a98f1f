#!/usr/bin/env python3
"""Correct, written another way: after reading `hello` it spends 2.5 s before answering `capabilities`
(compiling the catalog's schemas, opening and migrating a store, warming a connection pool).

Where it ships: executors that build validators for every tool, or connect to a database, when the session
begins.

Permitted by docs/protocol.md: "Your first line, within 20 s of `hello`."

Expected: passes every check under --profile all.
"""

import time

from correct import cp, serve

SETUP_S = 2.5
ORIGINAL_INIT = cp.Executor.__init__


def init(self, hello):
    ORIGINAL_INIT(self, hello)
    time.sleep(SETUP_S)


cp.Executor.__init__ = init

if __name__ == "__main__":
    serve(__file__)
