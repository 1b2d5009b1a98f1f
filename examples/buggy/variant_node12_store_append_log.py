"""Correct variant of the independent Node executor: the durable store is an append-only JSON-lines log per
session (one line per write, the last line of a key winning when the log is read back at start), instead of one
JSON file rewritten on every write.

docs/protocol.md: "`durable_store`: your idempotency records survive a restart of your process." and "keep the
records of different sessions apart, e.g. by prefixing every key with the session" (the layout is left free).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

import patch  # noqa: E402

FILE = "executor.mjs"
OLD = (
    """    this.file = path.join(dir, `${name}.json`);
    this.data = { records: {}, tasks: {} };
    try {
      this.data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch { /* a new store */ }
""",
    """        rec.state = 'UNKNOWN'; // its holder was a process that is gone
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
  putTask(k, v) { this.data.tasks[k] = v; this.flush(); }
""",
)
NEW = (
    """    this.file = path.join(dir, `${name}.jsonl`);
    this.data = { records: {}, tasks: {} };
    let text = '';
    try { text = fs.readFileSync(this.file, 'utf8'); } catch { /* a new store */ }
    if (text && !text.endsWith('\\n')) fs.appendFileSync(this.file, '\\n'); // a write torn by a kill ends here
    for (const line of text.split('\\n')) {
      if (!line) continue;
      let entry;
      try { entry = JSON.parse(line); } catch { continue; } // the torn write never reached anyone
      if (entry.t === 'r') this.data.records[entry.k] = entry.v;
      else if (entry.t === 't') this.data.tasks[entry.k] = entry.v;
    }
""",
    """        rec.state = 'UNKNOWN'; // its holder was a process that is gone
        this.put(rec.key, rec);
      }
    }
  }
  append(t, k, v) { fs.appendFileSync(this.file, JSON.stringify({ t, k, v }) + '\\n'); }
  get(key) { return this.data.records[key]; }
  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.append('r', key, rec); }
  getTask(k) { return this.data.tasks[k]; }
  putTask(k, v) { this.data.tasks[k] = v; this.append('t', k, v); }
""",
)

if __name__ == "__main__":
    patch.exec_node(__file__, FILE, OLD, NEW)
