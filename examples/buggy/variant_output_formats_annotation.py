#!/usr/bin/env python3
"""Correct, written another way: the downstream's output is validated against the output schema with `format`
as an annotation (JSON Schema 2020-12's default: no format checker), while the input keeps checking formats.

Where it ships: validators used with their defaults on output (Python jsonschema without a FormatChecker, ajv
without ajv-formats, most OpenAPI response validators).

Permitted by docs/protocol.md: "7. **Validate the output** against the output schema" (the input side says
"JSON Schema 2020-12 with formats"; the output side does not), and JSON Schema 2020-12 §7.2: format is an
annotation by default.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_TOOL_INIT = cp.Tool.__init__


def tool_init(self, entry):
    ORIGINAL_TOOL_INIT(self, entry)
    self.output = cp.StrictValidator(entry["output_schema"])


cp.Tool.__init__ = tool_init

if __name__ == "__main__":
    serve(__file__)
