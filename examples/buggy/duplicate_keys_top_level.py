#!/usr/bin/env python3
"""Bug: duplicate keys are refused at the top level only; nested objects keep the last value.

Where it ships: a duplicate check bolted onto a lenient parser that looks only at the argument object's own keys
(the level a tool's schema names), e.g. a regex over top-level members or a check of the outermost
`object_pairs_hook` call. docs/errors.md invalid_arguments: "an object repeats a key at any depth".

Expected check: corpus-codes / malformed-input-refused, if the corpus or a scenario repeats a key below the top
level (the call is then refused as schema_violation, or executed, instead of invalid_arguments).
"""

from collections import Counter

from correct import cp, serve


class _Object(dict):
    repeated = None


def _last_wins(pairs):
    value = _Object(pairs)
    keys = [key for key, _ in pairs]
    counts = Counter(keys)  # linear: a wide object is not this module's bug
    value.repeated = next((key for key in keys if counts[key] > 1), None)
    return value


_parse_raw = cp.parse_raw


def parse_raw(text):
    value = _parse_raw(text)
    # BUG: only the outermost object is asked whether it repeated a key.
    if isinstance(value, _Object) and value.repeated is not None:
        raise cp.Refusal("invalid_arguments", "tool arguments repeat a key", reason="duplicate_key",
                         path=cp._pointer((value.repeated,)))
    return value


cp._reject_duplicates = _last_wins
cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
