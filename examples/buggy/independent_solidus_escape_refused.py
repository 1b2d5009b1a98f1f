r"""independent_solidus_escape_refused: the strict parser refuses the escape `\/`.

Behaviour: the string escape table lists what `json.dumps` writes and leaves out `\/`, which RFC 8259 allows, so a
valid text such as `{"reason":"a\/b"}` is refused `invalid_json`.

Where it ships: hand-written strict JSON decoders with position reporting; PHP and some JavaScript emitters write
`"http:\/\/..."`.

Doc sentence it breaks: docs/protocol.md's decode step, JSON syntax "RFC 8259 exactly"; docs/errors.md
`invalid_json`: "the raw argument text is not exactly one JSON value under RFC 8259".

Written blind in round 9 (BLIND9.md), missed then: no valid call wrote an escaped solidus. Caught since
decode/every_escape_accepted sends every escape RFC 8259 allows.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "strictjson.py"
OLD = "                simple = {0x22: '\"', 0x5C: \"\\\\\", 0x2F: \"/\", 0x62: \"\\b\", 0x66: \"\\f\", 0x6E: \"\\n\", 0x72: \"\\r\", 0x74: \"\\t\"}\n"
NEW = (
    "                # BUG(solidus_escape_refused): the escape table lists what json.dumps writes and forgets `\\/`,\n"
    "                # which RFC 8259 allows (PHP and some JS emitters write \"http:\\/\\/...\"). A valid text is refused\n"
    "                # as invalid_json. Breaks docs/protocol.md step 1 \"JSON syntax (RFC 8259 exactly)\" / docs/errors.md\n"
    "                # invalid_json (\"the raw argument text is not exactly one JSON value under RFC 8259\"). Ships in\n"
    "                # hand-written strict JSON decoders with position reporting.\n"
    "                simple = {0x22: '\"', 0x5C: \"\\\\\", 0x62: \"\\b\", 0x66: \"\\f\", 0x6E: \"\\n\", 0x72: \"\\r\", 0x74: \"\\t\"}\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
