"""Bug: a prompt-injection guard refuses any successful result whose text looks like an instruction
("ignore previous ..."), answering output_invalid, so a valid result that carries such text as data is withheld.

Ships in: output guardrails (NeMo Guardrails / Lakera-style "block tool output that contains an injection")
placed inside the executor.
Breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected ... and validated", and
docs/errors.md output_invalid, "When: the tool reported success but its result does not match the tool's output
schema" (a schema-valid result is no output_invalid); downstream/injected_text_is_data: "It is returned as data".
"""

import json
import re

from correct import cp, serve

_INSTRUCTION = re.compile(r"\b(ignore|disregard|forget)\b[^.]{0,40}\b(previous|prior|above|earlier)\b",
                          re.IGNORECASE)
_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if not isinstance(result, cp.Refusal) and _INSTRUCTION.search(json.dumps(result, ensure_ascii=False)):
        return "FAILED_FINAL", cp.Refusal("output_invalid", "the tool's output was withheld by the safety filter",
                                          reason="unsafe_content")
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
