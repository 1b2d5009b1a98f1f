"""Blind round 19: control characters in result strings are replaced by spaces.

The change: a log-injection guard ("a newline in tool output can forge a line of the agent's transcript or of our
logs") replaces every C0 control character and DEL in the result's strings with a space, in the function that
shapes a downstream body into the tool's result (`project`), so the returned result is the flattened one. Where it
ships: output sanitisers of agent frameworks and tool gateways that keep tool output "single-line safe".

Doc sentence it breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the
output schema's properties and validated"; docs/checks.md `result-matches-downstream`: "values are equal", "a value
rewritten on the way" fails.
"""

import re

from correct import cp, serve

_CONTROL = re.compile("[\x00-\x1f\x7f]")
_project = cp.project


def _flatten(value):
    if isinstance(value, str):
        return _CONTROL.sub(" ", value)
    if isinstance(value, dict):
        return {key: _flatten(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_flatten(item) for item in value]
    return value


def project(tool, value):
    return _flatten(_project(tool, value))


cp.project = project

if __name__ == "__main__":
    serve(__file__)
