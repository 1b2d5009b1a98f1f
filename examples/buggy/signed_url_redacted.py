"""Bug: every successful result goes through a secret scrubber that masks the query string of URLs (a signed
link's `?signature=...` becomes `?REDACTED`), so a poll's `download_url` is not the one the service answered.

Ships in: secret-redaction middleware (presigned-URL scrubbers, "sanitize tool output" hooks) applied to tool
results as well as to logs.
Breaks: docs/errors.md, "A success is the tool's own result and is not bound by this"; docs/conformance-app.md,
"2xx with a JSON body | applied | the body, projected onto the output schema's properties and validated".
"""

import re

from correct import cp, serve

_URL_QUERY = re.compile(r"^([a-z][a-z0-9+.-]*://[^?#\s]+)\?[^#\s]*", re.IGNORECASE)


def scrub(value):
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, str):
        return _URL_QUERY.sub(r"\1?REDACTED", value)
    return value


_call_tool = cp.Executor.call_tool


def call_tool(self, tool, arguments, ctx, held):
    state, result = _call_tool(self, tool, arguments, ctx, held)
    if not isinstance(result, cp.Refusal):
        result = scrub(result)
    return state, result


cp.Executor.call_tool = call_tool

if __name__ == "__main__":
    serve(__file__)
