#!/usr/bin/env python3
"""Bug: a leading byte order mark is stripped from the argument text instead of refused.

Where it ships: reading text as `utf-8-sig`, `text.lstrip("\\ufeff")` in a "robust" parser, or .NET and
PowerShell JSON readers that skip a BOM; RFC 8259 forbids emitting one and the contract refuses it.

Expected catch: corpus-codes and malformed-input-refused (decode/malformed_corpus).
"""

from correct import cp, serve

ORIGINAL_PARSE_RAW = cp.parse_raw


def parse_raw(text):
    return ORIGINAL_PARSE_RAW(text.lstrip("\ufeff"))  # the bug: the BOM is forgiven


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
