r"""independent_duplicate_key_raw_spelling: duplicate keys are found by their spelling, escapes not decoded.

Behaviour: the strict parser remembers, per object, each key's token as written and refuses a key only when the
same bytes come again, so `"amount"` and `"\u0061mount"` are two keys to the check while the decoded object keeps
the last value. A plain repeat is still refused.

Where it ships: streaming JSON validators that deduplicate keys on the token's bytes.

Doc sentence it breaks: docs/errors.md `invalid_arguments`: "an object repeats a key at any depth (a parser that
keeps the last one would let a model smuggle a second value past a reviewer)".

Written blind in round 9 (BLIND9.md), caught then: corpus case duplicate_key_spelled_with_an_escape.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "strictjson.py"
# One change in 3 places of the file; each old piece occurs once.
OLD = (
    "    stack = []  # containers: list or _Obj\n",
    "        if k in top.d:\n",
    "        top.d[k] = None  # placeholder keeps duplicates visible\n",
)
NEW = (
    (
        "    _raw_keys = {}  # BUG(duplicate_key_raw_spelling): key spellings seen per object (by id; objects live until parse ends)\n"
        "    stack = []  # containers: list or _Obj\n"
    ),
    (
        "        # BUG(duplicate_key_raw_spelling): duplicates are detected on the key's token as written (fast path: the\n"
        "        # raw bytes, escapes not decoded), so `\"amount\"` and `\"\\u0061mount\"` are two keys here and the decoded\n"
        "        # dict keeps the last value. Breaks docs/errors.md invalid_arguments: \"an object repeats a key at any\n"
        "        # depth (a parser that keeps the last one would let a model smuggle a second value past a reviewer)\".\n"
        "        # Ships in streaming JSON validators that dedupe on token bytes.\n"
        "        raw_key = data[kstart:i]\n"
        "        seen = _raw_keys.setdefault(id(top), (top, set()))[1]\n"
        "        if raw_key in seen:\n"
    ),
    (
        "        seen.add(raw_key)  # BUG(duplicate_key_raw_spelling), continued: remember the spelling\n"
        "        top.d[k] = None  # placeholder keeps duplicates visible\n"
    ),
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
