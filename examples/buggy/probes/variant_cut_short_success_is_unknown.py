#!/usr/bin/env python3
"""Written another way, and a judgement call: a 2xx whose JSON body is cut short (the text ends in the middle
of a JSON value: the parser runs out of input) is answered `timeout_unknown` (`reason: unexpected_answer`, with
`downstream_status`), the record becomes UNKNOWN, and the retry reconciles by status query. A 2xx whose body is
complete but not JSON stays `output_invalid` (`reason: unreadable`), as in the example.

Where it ships: clients that treat a truncated body as a broken transfer (the outcome is unknown and worth
asking about), not as a bad payload.

Permitted? docs/errors.md, timeout_unknown, When: "a tool with side effects may have applied the request and no
answer says whether it did: ... or answered success with a body that cannot be read (over 1 MiB, or **cut
short**)", and Details `unexpected_answer` (with `downstream_status`). Against it: docs/protocol.md's table
"2xx, body not JSON | applied, unusable | `output_invalid` (`reason: unreadable`)" and docs/errors.md,
output_invalid: "or the downstream's success body could not be read". Both codes say "effect unknown" and
neither is retryable.

Expected: fails `expectations` on downstream/truncated_success_body (it pins output_invalid, then a replay);
every effect check passes. The report says which document should change.
"""

import json

import os
import sys

# A probe, kept out of examples/buggy (and its manifest) while it fails today: correct.py is one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from correct import cp, serve  # noqa: E402

ORIGINAL_CALL_TOOL = cp.Executor.call_tool


def cut_short(body):
    try:
        json.loads(body)
    except ValueError as error:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        # The example's own diagnosis for argument text: the parser ran out of input (docs/errors.md `truncated`).
        return isinstance(error, json.JSONDecodeError) and text.strip() != "" and cp._syntax_hint(text, error) == "truncated"
    return False


def call_tool(self, tool, arguments, ctx, held):
    state, result = ORIGINAL_CALL_TOOL(self, tool, arguments, ctx, held)
    if (tool.side_effect and isinstance(result, cp.Refusal) and result.code == "output_invalid"
            and result.details.get("reason") == "unreadable"):
        status, body = result.details["downstream_status"], ctx.last_body
        if cut_short(body):
            return "UNKNOWN", cp.Refusal("timeout_unknown", "the downstream's success answer was cut short; the "
                                         "outcome is unknown", reason="unexpected_answer", downstream_status=status)
    return state, result


ORIGINAL_SEND = cp.Downstream.send


def send(self, template, arguments, ctx, key=None):
    answer = ORIGINAL_SEND(self, template, arguments, ctx, key)
    ctx.last_body = answer[2]
    return answer


cp.Executor.call_tool = call_tool
cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
