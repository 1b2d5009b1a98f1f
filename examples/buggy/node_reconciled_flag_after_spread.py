"""node_reconciled_flag_after_spread: meta.reconciled is set after succeed() copied meta, so the answer lacks it.

Behaviour: in reconciliation's `completed` branch the flag is set after the envelope was built: `const envelope =
succeed(result, meta); meta.reconciled = true;`. succeed() copies meta with a spread, so the flag never reaches the
answer, nor the recorded outcome that later attempts replay.

Where it ships: any JS code that assumes object spread keeps a reference (`{ ...meta }` is a snapshot).

Doc sentence it breaks: docs/protocol.md, Reconciliation: "200 {"status":"completed","result":{...}} → the result,
meta.reconciled = true; record it"; docs/errors.md business_rejected "then meta.reconciled is true".

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = ("      meta.reconciled = true;\n"
       "      const result = this.project(tool, found.result);\n"
       "      const violations = validate(tool.entry.output_schema, result);\n"
       "      const envelope = violations.length\n"
       "        ? fail(new Refusal('output_invalid', \"the tool's output breaks its contract\", { path: violations[0].path, keyword: violations[0].keyword }), meta)\n"
       "        : succeed(result, meta);\n")
# BUG: the flag is set after succeed() spread-copied meta.
NEW = ("      const result = this.project(tool, found.result);\n"
       "      const violations = validate(tool.entry.output_schema, result);\n"
       "      const envelope = violations.length\n"
       "        ? fail(new Refusal('output_invalid', \"the tool's output breaks its contract\", { path: violations[0].path, keyword: violations[0].keyword }), meta)\n"
       "        : succeed(result, meta);\n"
       "      meta.reconciled = true; // the answer came from the status query\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
