#!/usr/bin/env python3
"""Correct, written another way: when stdin closes it answers every call still in flight, then exits with status
3 (its "input ended" code) instead of 0.

Where it ships: executors whose runtime reports the end of input as an error exit (a supervisor convention, a
reader loop that raises EOFError to main, Node's `process.exitCode` left set by a handled error).

Permitted? docs/protocol.md: "The harness closes your stdin when it is done with you. Answer what is still in
flight, then exit." No exit status is asked for; a protocol break is "closing stdout or exiting while requests
are open".

Expected: passes every check under --profile all (measured 2026-12-03: the exit status after every answer is
not judged).
"""

from correct import cp, serve

ORIGINAL_MAIN = cp.main


def main():
    code = ORIGINAL_MAIN()
    return 3 if code == 0 else code


cp.main = main

if __name__ == "__main__":
    serve(__file__)
