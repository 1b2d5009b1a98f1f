#!/usr/bin/env python3
"""Bug: a repeated key in the argument text is not refused; the last value wins.

Where it ships: `json.loads` (and serde_json, Go's encoding/json, JSON.parse) keep the last duplicate silently;
an `object_pairs_hook` that only builds the dict, written to keep key order, does the same.

Expected catch: malformed-input-refused and expectations (decode/duplicate_keys), corpus-codes
(decode/malformed_corpus).
"""

from correct import cp, serve


def _reject_duplicates(pairs):
    return dict(pairs)  # the bug: dict() keeps the last of two equal keys


cp._reject_duplicates = _reject_duplicates

if __name__ == "__main__":
    serve(__file__)
