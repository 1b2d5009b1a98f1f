"""Blind round 19: a "double-escaping repair" decodes backslash sequences in result strings again.

The change: some services double-encode their JSON (a string holding `\\u00fc` or `\\n` as text), so the result
shaper (`project`) "repairs" any result string that contains a backslash by running it through Python's
`unicode_escape` codec, keeping the original when that fails. A string that really holds a backslash (a location
echoed as the caller wrote it) is rewritten: `\\t` becomes a tab, and the non-ASCII characters around it are read as
Latin-1. Where it ships: helpers that fix "mojibake" or double-escaped LLM/tool text with
`codecs.decode(s, "unicode_escape")`.

Doc sentence it breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the
output schema's properties and validated"; docs/checks.md `result-matches-downstream`: "values are equal".
"""

import codecs

from correct import cp, serve

_project = cp.project


def _repair(value):
    if isinstance(value, str):
        if "\\" in value:
            try:
                return codecs.decode(value, "unicode_escape")
            except UnicodeDecodeError:
                return value
        return value
    if isinstance(value, dict):
        return {key: _repair(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_repair(item) for item in value]
    return value


def project(tool, value):
    return _repair(_project(tool, value))


cp.project = project

if __name__ == "__main__":
    serve(__file__)
