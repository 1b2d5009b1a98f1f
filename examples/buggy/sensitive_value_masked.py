#!/usr/bin/env python3
"""Bug: schema-violation messages are the validator's own (which quote the value), with the values of
`x-sensitive` properties "redacted" by masking: the first 4 and last 4 characters are kept.

`_violations` uses jsonschema's `error.message` (`'Dear Bob, the ...' is too long`, `['...'] is not of type
'string'`) and, for every string found under a property the input schema marks `x-sensitive`, replaces it in the
message with `Dear…r 7Q` (4 characters, an ellipsis, 4 characters; `****` for 8 characters or fewer).

Ships: the masking habit for card numbers and API keys (`sk_live_…abcd`, `**** **** **** 4242`) applied to user
content; log redaction filters.

Doc sentence: docs/errors.md, "no failure repeats the value the caller put there, or any part of it: not in
`message`, not in `details`".
"""
import correct
from correct import cp


def _mask(text):
    return text[:4] + "\u2026" + text[-4:] if len(text) > 8 else "****"


def _sensitive_strings(schema, value):
    """Every string lying under a property the schema marks x-sensitive."""
    found = []
    if isinstance(value, dict) and isinstance(schema, dict):
        for name, item in value.items():
            declared = schema.get("properties", {}).get(name)
            if isinstance(declared, dict) and declared.get("x-sensitive"):
                found.extend(_strings(item))
            elif isinstance(declared, dict):
                found.extend(_sensitive_strings(declared, item))
    return found


def _strings(value):
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in _strings(key) + _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _redact(message, secrets):
    for secret in sorted(secrets, key=len, reverse=True):
        message = message.replace(repr(secret)[1:-1], _mask(secret)).replace(secret, _mask(secret))
    return message


def _violations(validator, value):
    errors = sorted(validator.iter_errors(value),
                    key=lambda error: (list(error.absolute_path), error.validator != "type"))
    secrets = _sensitive_strings(validator.schema, value)
    return [{"path": cp._pointer(error.absolute_path), "keyword": str(error.validator),
             "message": _redact(error.message, secrets), "members": cp._members(error)} for error in errors]


cp._violations = _violations

if __name__ == "__main__":
    correct.serve(__file__)
