"""Bug: the strict `integer` type accepts booleans (Python's True is an int), so `"amount": true` refunds 1.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
import jsonschema
from correct import cp, serve

# BUG(bool_passes_integer_check): isinstance(value, int) without `and not isinstance(value, bool)`
_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: isinstance(value, int))
cp.StrictValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)

if __name__ == "__main__":
    serve(__file__)
