"""node_body_decoded_per_chunk: each chunk of a downstream answer is decoded as UTF-8 on its own.

Behaviour: the `http` transport keeps every `data` chunk as text (`chunk.toString('utf8')`, the effect of the
common `body += chunk`) instead of concatenating the bytes and decoding the whole body once. A character whose
bytes are split between two reads becomes two U+FFFD replacement characters, so the weather service's echo of
`Zürich 東京` comes back garbled: a changed result answered as `ok`.

Where it ships: `let body = ''; res.on('data', (chunk) => { body += chunk; })`, in Node HTTP clients written by
hand and in many examples; it passes every test whose answers arrive in one read.

Doc sentence it breaks: docs/protocol.md "Bodies both ways are JSON in UTF-8"; the result is the downstream's
answer projected, not altered.

Written blind in round 6 (BLIND6.md), missed then and in round 8: the mock wrote every body whole. Caught since
the `body_in_two_parts` fault splits an answer inside a character (downstream/answer_in_two_parts).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "          else chunks.push(chunk);\n"
# BUG: each chunk decoded (and so re-encoded) on its own.
NEW = "          else chunks.push(Buffer.from(chunk.toString('utf8'))); // BUG: decoded per chunk\n"

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
