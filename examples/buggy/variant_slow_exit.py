#!/usr/bin/env python3
"""Correct, written another way: when stdin closes it answers what is in flight (as the example does) and then
takes 1.2 s to exit, as an executor that flushes metrics, closes a connection pool or checkpoints a store.

Permitted by docs/protocol.md: "The harness closes your stdin when it is done with you. Answer what is still in
flight, then exit. If you have not exited 2 s later you are killed." 1.2 s is inside those 2 s.

Expected: passes every check under --profile all (each scenario takes about 1.2 s longer). A false-positive
probe for a harness that judges, or reports as broken, an executor that is slow but within the grace period.
"""

import time

from correct import cp, serve

ORIGINAL_MAIN = cp.main


def main():
    code = ORIGINAL_MAIN()
    time.sleep(1.2)
    return code


cp.main = main

if __name__ == "__main__":
    serve(__file__)
