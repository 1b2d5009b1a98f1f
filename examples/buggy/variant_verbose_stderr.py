#!/usr/bin/env python3
"""Correct, written another way: debug logging on stderr. Every execute message is logged (cut to 4 KiB), and
every downstream request and every answer gets a line, so a corpus run writes hundreds of kilobytes to stderr;
stdout still carries protocol lines only.

Where it ships: executors run with DEBUG logging in CI, which is where conformance suites run.

Permitted by docs/protocol.md: "**stdout carries protocol lines and nothing else.** Logs, warnings and stack
traces go to stderr; the harness keeps the last 20 lines of stderr and shows them when something goes wrong."
No limit on how much is logged.

Expected: passes every check under --profile all. A false-positive probe for a harness that does not drain the
executor's stderr (a full 64 KiB pipe would block the executor and every call would time out).
"""

import json
import sys

from correct import cp, serve

ORIGINAL_SEND = cp.Downstream.send
ORIGINAL_EXECUTE = cp.Executor.execute


def log(text):
    sys.stderr.write("DEBUG callproof-variant: " + text + "\n")
    sys.stderr.flush()


def send(self, template, arguments, ctx, key=None):
    log("request %s for %s, %d ms left, key %s" % (template, ctx.request_id, ctx.remaining_ms(), key))
    answer = ORIGINAL_SEND(self, template, arguments, ctx, key)
    log("answer %s for %s: %s" % (answer[0], ctx.request_id, answer[2][:512]))
    return answer


def execute(self, message, received):
    log("execute " + json.dumps(message)[:4096])
    envelope = ORIGINAL_EXECUTE(self, message, received)
    log("envelope " + json.dumps(envelope)[:4096])
    return envelope


cp.Downstream.send = send
cp.Executor.execute = execute

if __name__ == "__main__":
    serve(__file__)
