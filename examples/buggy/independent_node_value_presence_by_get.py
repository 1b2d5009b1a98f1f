"""The line reader tests `arguments.get('value')` (truthiness) instead of `.has('value')`: a value of 0, false, "" or
null is not captured and the call fails as internal_error instead of invalid_arguments not_an_object. Breaks
docs/protocol.md '{"value": <JSON>} ... It may be any JSON value'."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = 'executor.mjs'
OLD = (
    "rawCall.get('arguments') instanceof Map && rawCall.get('arguments').has('value')) {",
)
NEW = (
    "rawCall.get('arguments') instanceof Map && rawCall.get('arguments').get('value')) { // BUG(value_presence_by_get)",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
