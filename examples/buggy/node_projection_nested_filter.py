"""node_projection_nested_filter: the success body is projected with JSON.stringify replacer-array semantics.

Behaviour: the projection onto the output schema's properties keeps only the declared top-level names at every
depth (what `JSON.parse(JSON.stringify(body, Object.keys(schema.properties)))` does: a replacer array filters the
members of nested objects too). Flat results are unchanged; task_status's nested `result` object loses
account_id, records and download_url, and the completed poll becomes output_invalid.

Where it ships: JS code that "whitelists fields" of an API response with the JSON.stringify replacer array.

Doc sentence it breaks: docs/protocol.md "2xx, JSON body | applied | `ok`, the body projected onto the output
schema's properties, validated"; docs/conformance-app.md Tasks: `task_status` answers `{task_id, status, result}`
with `result` non-null when completed.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "node"))
import patched  # noqa: E402

OLD = ("      return Object.fromEntries(Object.entries(value).filter(([name]) => tool.declaredOut.has(name)));\n")
# BUG: the key filter recurses like a JSON.stringify replacer array.
NEW = ("      // BUG: JSON.stringify(body, [...declared]) semantics: the filter applies at every depth\n"
       "      const keep = (v) => (Array.isArray(v) ? v.map(keep) : isObject(v)\n"
       "        ? Object.fromEntries(Object.entries(v).filter(([name]) => tool.declaredOut.has(name)).map(([k, x]) => [k, keep(x)]))\n"
       "        : v);\n"
       "      return keep(value);\n")

if __name__ == "__main__":
    patched.exec_node(__file__, OLD, NEW)
