#!/usr/bin/env python3
"""Bug: the input schema's `format` keywords are not checked, so `to: "not an address"` sends an email.

Where it ships: jsonschema (Python), and most validators, treat `format` as an annotation unless a format
checker is passed explicitly; `Draft202012Validator(schema)` alone validates no email, date or uri.

Expected catch: corpus-codes and malformed-input-refused (decode/malformed_corpus) if the corpus has a
format case; otherwise nothing today.
"""

from correct import cp, serve


class Tool(cp.Tool):
    def __init__(self, entry):
        super().__init__(entry)
        self.input = cp.StrictValidator(entry["input_schema"])  # the bug: no format_checker


cp.Tool = Tool

if __name__ == "__main__":
    serve(__file__)
