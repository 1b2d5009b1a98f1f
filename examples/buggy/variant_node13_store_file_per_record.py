"""Correct variant of the independent Node executor: the durable store is one JSON file per record (and per kept
task answer) in a folder per session, each written to a temporary file and renamed into place, instead of one JSON
file per session rewritten whole.

Docs: protocol.md "If your idempotency store outlives your process (a database file, PostgreSQL, Redis), keep the
records of different sessions apart, e.g. by prefixing every key with the session"; the layout is the store's own.
Expected: passes under --profile all.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    """    const dir = path.join(os.tmpdir(), 'freshnode-callproof');
    fs.mkdirSync(dir, { recursive: true });
    const name = crypto.createHash('sha256').update(`${session}\\u0000${downstream}`).digest('hex');
    this.file = path.join(dir, `${name}.json`);
    this.data = { records: {}, tasks: {} };
    try {
      this.data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch { /* a new store */ }
    let changed = false;
    for (const rec of Object.values(this.data.records)) {
      if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {
        rec.state = 'UNKNOWN'; // its holder was a process that is gone
        rec.updated_ms = Date.now();
        changed = true;
      }
    }
    if (changed) this.flush();
  }
  flush() {
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.data));
    fs.renameSync(tmp, this.file);
  }
  get(key) { return this.data.records[key]; }
  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }
  getTask(k) { return this.data.tasks[k]; }
  putTask(k, v) { this.data.tasks[k] = v; this.flush(); }""",
)
NEW = (
    """    const name = crypto.createHash('sha256').update(`${session}\\u0000${downstream}`).digest('hex');
    this.dir = path.join(os.tmpdir(), 'freshnode-callproof-per-record', name);
    this.data = { records: {}, tasks: {} };
    for (const kind of ['records', 'tasks']) {
      fs.mkdirSync(path.join(this.dir, kind), { recursive: true });
      for (const f of fs.readdirSync(path.join(this.dir, kind))) {
        if (!f.endsWith('.json')) continue;
        try {
          const entry = JSON.parse(fs.readFileSync(path.join(this.dir, kind, f), 'utf8'));
          this.data[kind][entry.key] = entry.value;
        } catch { /* a torn temporary file is never renamed into place */ }
      }
    }
    for (const [key, rec] of Object.entries(this.data.records)) {
      if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {
        rec.state = 'UNKNOWN'; // its holder was a process that is gone
        rec.updated_ms = Date.now();
        this.write('records', key, rec);
      }
    }
  }
  write(kind, key, value) {
    const file = path.join(this.dir, kind, crypto.createHash('sha256').update(key).digest('hex') + '.json');
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ key, value }));
    fs.renameSync(tmp, file);
  }
  get(key) { return this.data.records[key]; }
  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.write('records', key, rec); }
  getTask(k) { return this.data.tasks[k]; }
  putTask(k, v) { this.data.tasks[k] = v; this.write('tasks', k, v); }""",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
