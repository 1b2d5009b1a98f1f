"""Bug: the time a line was read is taken once, before the stdin loop, instead of for each line.

Every call's deadline is counted from when the executor started reading, so later calls get less (or none) of
their budget: early timeout_not_started, small X-Deadline-Ms. A loop-invariant-looking `received =
time.monotonic()` hoisted out of the read loop. Breaks docs/protocol.md execute: "`budget_ms`: the time budget,
counted from when you read the line. Turn it into one absolute deadline."
"""

from correct import changed_copy, cp, serve

changed_copy(cp, "main",
             """        for line in sys.stdin:
            received = time.monotonic()
""",
             """        received = time.monotonic()
        for line in sys.stdin:
""")

if __name__ == "__main__":
    serve(__file__)
