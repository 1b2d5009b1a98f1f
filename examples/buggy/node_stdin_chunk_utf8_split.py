"""node_stdin_chunk_utf8_split: stdin lines are cut from chunks decoded one by one; a character across two reads breaks.

Behaviour: protocol lines are split by hand from stdin's chunks with `pending += chunk`: each Buffer chunk is
decoded to a string on its own, so a multi-byte UTF-8 character that straddles two reads (Node reads a pipe 64 KiB
at a time) turns into two U+FFFD replacement characters. Lines shorter than a read, or ASCII-only, are unaffected; a
long line with non-ASCII text on a read boundary reaches the decoder altered.

Where it ships: hand-rolled JSON-lines/stdio transports in Node (`process.stdin.on('data', c => buf += c)`), written
to avoid readline; the fix is setEncoding('utf8') or a StringDecoder.

Doc sentence it breaks: docs/protocol.md, Transport: "One message per line: a JSON object on a single line, UTF-8";
execute: arguments "chosen deliberately so that nothing is lost on the wire".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = "  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });\n"
# BUG: each chunk is decoded alone (`pending += chunk`).
NEW = ("  // Lines straight from stdin's chunks: no readline machinery between the pipe and the decoder.\n"
       "  const lines = (async function* stdinLines() {\n"
       "    let pending = '';\n"
       "    for await (const chunk of process.stdin) {\n"
       "      pending += chunk;\n"
       "      let newline;\n"
       "      while ((newline = pending.indexOf('\\n')) !== -1) {\n"
       "        yield pending.slice(0, newline);\n"
       "        pending = pending.slice(newline + 1);\n"
       "      }\n"
       "    }\n"
       "    if (pending.length) yield pending;\n"
       "  })();\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
