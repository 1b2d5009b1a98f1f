"""Bug: every string in a successful result is HTML-escaped (`html.escape`) before it is answered, as an output
sanitiser against injected markup would.

Ships in: tool-output sanitisers in agent/chat backends that escape tool results for safe rendering.
Breaks: docs/errors.md, "A success is the tool's own result and is not bound by this"; docs/conformance-app.md,
"2xx with a JSON body | applied | the body, projected onto the output schema's properties and validated".
"""

import html

from correct import cp, serve


def escape(value):
    if isinstance(value, dict):
        return {key: escape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [escape(item) for item in value]
    if isinstance(value, str):
        return html.escape(value, quote=True)
    return value


_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if not isinstance(result, cp.Refusal):
        result = escape(result)
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
