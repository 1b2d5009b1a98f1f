r"""independent_leading_zeros_accepted: a number's integer part is read as [0-9]+, so `007` parses as 7.

Behaviour: the strict parser drops RFC 8259's rule that an integer part starting with 0 is that 0 alone, so
`007` and `-01` are read as 7 and -1 instead of refused `invalid_json`.

Where it ships: hand-written tokenizers that copy a lexer's digit loop.

Doc sentence it breaks: docs/errors.md `invalid_json` ("There is no leniency") and docs/protocol.md's decode
step, JSON syntax "RFC 8259 exactly".

Written blind in round 9 (BLIND9.md), caught then: corpus case leading_zero_number.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "strictjson.py"
OLD = (
    "        if data[i] == 0x30:\n"
    "            i += 1\n"
    "        elif 0x31 <= data[i] <= 0x39:\n"
)
NEW = (
    "        # BUG(leading_zeros_accepted): the integer part is read as [0-9]+, without RFC 8259's special case for a\n"
    "        # leading 0, so `007` and `-01` are read as 7 and -1 instead of refused. Breaks docs/errors.md invalid_json\n"
    "        # (\"There is no leniency\") and docs/protocol.md step 1 \"JSON syntax (RFC 8259 exactly)\". Ships in\n"
    "        # hand-written tokenizers that copy the digit loop of a lexer.\n"
    "        if 0x30 <= data[i] <= 0x39:\n"
)

if __name__ == "__main__":
    patch.exec_python(__file__, FILE, OLD, NEW)
