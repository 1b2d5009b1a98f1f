#!/usr/bin/env python3
"""Correct, written another way: the whole executor of examples/independent/python/, written from the docs alone.

Blind round 8 (BLIND8.md): its author read docs/, README.md and the catalog, never an example executor, and every
failure it met was either its own bug (fixed) or the suite's fault (fixed in the suite). It is kept as a guard:
a check that starts failing an executor designed independently of every example is a false positive until shown
otherwise.

Expected: passes every check under --profile all.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.stdout.flush()
    script = os.path.join(HERE, os.pardir, "independent", "python", "executor.py")
    os.execvp(sys.executable, [sys.executable, script])
