#!/usr/bin/env python3
"""Bug: an integer field accepts a float with an integral value (100.0, 1e2), as JSON Schema's `integer` allows.

Where it ships: jsonschema's stock Draft202012Validator (and ajv, and most validators) implement the spec's
"a number with a zero fractional part is an integer"; the contract here asks for integer literals only, because
other parsers read 1e2 or 100.0 differently (this one sends 100.0 on, which a Rust or Go service may refuse or
read as "no amount").

Expected catch: malformed-input-refused and expectations (decode/string_for_integer), corpus-codes
(decode/malformed_corpus).
"""

import jsonschema

from correct import cp, serve

cp.StrictValidator = jsonschema.Draft202012Validator  # the bug: the stock `integer` type, not integer literals

if __name__ == "__main__":
    serve(__file__)
