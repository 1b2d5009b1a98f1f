r"""independent_pattern_dollar_allows_newline: schema patterns go to Python's `re` as written.

Behaviour: the schema validator compiles each catalog pattern unchanged (the independent executor turns a final `$`
into `\Z`). In Python's `re` a final `$` also matches before a trailing newline, so `^ord_[A-Za-z0-9]+$` accepts
`"ord_1\n"`, which ECMA-262, the dialect of JSON Schema 2020-12, refuses.

Where it ships: every Python validator that hands JSON Schema patterns to `re.search`, python-jsonschema included.

Doc sentence it breaks: docs/errors.md `schema_violation`: "a range, length, pattern, enum or format violation"
(JSON Schema 2020-12) is refused.

Written blind in round 9 (BLIND9.md), missed then and now: no corpus case pins it, since python-jsonschema,
which correct Python executors use, behaves the same way and pinning it would fail them.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "schema.py"
OLD = (
    "        p = pattern\n"
    "        if p.endswith(\"$\") and not p.endswith(\"\\\\$\"):\n"
    "            p = p[:-1] + r\"\\Z\"\n"
    "        r = re.compile(p)\n"
)
NEW = (
    "        # BUG(pattern_dollar_allows_newline): the catalog's patterns are compiled as they are; in Python's re a\n"
    "        # final `$` also matches before a trailing newline, so `^ord_[A-Za-z0-9]+$` accepts \"ord_1\\n\" (ECMA-262,\n"
    "        # which JSON Schema 2020-12 follows, does not). Breaks docs/errors.md schema_violation: \"a range, length,\n"
    "        # pattern, enum or format violation\" is refused. Ships in every Python validator that feeds JSON Schema\n"
    "        # patterns straight to re.search.\n"
    "        r = re.compile(pattern)\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
