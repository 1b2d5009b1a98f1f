"""Correct variant of the independent Node executor: every answered call is appended as one JSON line (time, id,
request id, call id, tool name, code) to an audit file of its session beside the durable store, before its result
line is written. Arguments are never logged.

Docs: README "one stable error envelope, audit records"; errors.md internal_error "An operator should look at the
audit record of the call". Where and when audit records are written is the executor's own. Expected: passes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    "      .then((envelope) => {\n        send({ type: 'result', id, envelope });\n",
)
NEW = (
    "      .then((envelope) => {\n"
    "        try {\n"
    "          const dir = path.join(os.tmpdir(), 'freshnode-callproof');\n"
    "          fs.mkdirSync(dir, { recursive: true });\n"
    "          const file = path.join(dir, 'audit-' + crypto.createHash('sha256').update(String(hello?.session)).digest('hex').slice(0, 16) + '.jsonl');\n"
    "          fs.appendFileSync(file, JSON.stringify({ at_ms: Date.now(), id, request_id: envelope?.meta?.request_id ?? null,\n"
    "            call_id: envelope?.meta?.call_id ?? null, tool: String(msg.call?.name ?? '').slice(0, 64), ok: envelope?.ok === true,\n"
    "            code: envelope?.error?.code ?? null }) + '\\n');\n"
    "        } catch (e) { log('audit write failed:', e && e.message); }\n"
    "        send({ type: 'result', id, envelope });\n",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
