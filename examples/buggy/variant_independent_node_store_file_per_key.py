"""The independent Node executor with one legitimate freedom: durable store: one file per record (`r_<key>.json`) and
per kept task answer (`t_<sha>.json`) in a folder per session, each written atomically via rename. The original
keeps one JSON file per session.

Written blind in round 15 (examples/buggy/BLIND15.md) as a correct variant: the suite must pass it under
`--profile all`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = (
    "    const dir = path.join(os.tmpdir(), 'freshnode-callproof');\n    fs.mkdirSync(dir, { recursive: true });",
    "    this.file = path.join(dir, `${name}.json`);\n    this.data = { records: {}, tasks: {} };\n    try {\n      this.data = JSON.parse(fs.readFileSync(this.file, 'utf8'));\n    } catch { /* a new store */ }\n    let changed = false;\n    for (const rec of Object.values(this.data.records)) {\n      if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {",
    '        changed = true;',
    '    if (changed) this.flush();',
    '  flush() {\n    const tmp = `${this.file}.${process.pid}.tmp`;\n    fs.writeFileSync(tmp, JSON.stringify(this.data));\n    fs.renameSync(tmp, this.file);',
    '  get(key) { return this.data.records[key]; }\n  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }\n  getTask(k) { return this.data.tasks[k]; }\n  putTask(k, v) { this.data.tasks[k] = v; this.flush(); }',
)
NEW = (
    '',
    "    this.dir = path.join(os.tmpdir(), 'freshnode-callproof-perkey', name);\n    fs.mkdirSync(this.dir, { recursive: true });\n    for (const f of fs.readdirSync(this.dir)) {\n      if (!f.startsWith('r_') || !f.endsWith('.json')) continue;\n      const rec = this.read(path.join(this.dir, f));\n      if (rec && rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {",
    '        this.write(path.join(this.dir, f), rec);',
    '',
    "  read(file) {\n    try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return undefined; }",
    "  write(file, value) {\n    const tmp = `${file}.${process.pid}.tmp`;\n    fs.writeFileSync(tmp, JSON.stringify(value));\n    fs.renameSync(tmp, file);\n  }\n  recFile(key) { return path.join(this.dir, `r_${key}.json`); }\n  taskFile(k) { return path.join(this.dir, `t_${crypto.createHash('sha256').update(k).digest('hex')}.json`); }\n  get(key) { return this.read(this.recFile(key)); }\n  put(key, rec) { rec.updated_ms = Date.now(); this.write(this.recFile(key), rec); }\n  getTask(k) { return this.read(this.taskFile(k)); }\n  putTask(k, v) { this.write(this.taskFile(k), v); }",
)

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
