"""Not an SDK server: a bare JSON-RPC loop (standard library) listing one tool per regex `pattern`, to see which
ECMA-262 patterns `mcp-input-schema-valid` refuses. Run: callproof mcp --mcp-revision 2025-11-25 --server "python3 raw_patterns.py"."""
import json, sys
pats = {
 "url": r"^https?:\/\/[^\s/$.?#].[^\s]*$",
 "phone": r"^\+?[1-9]\d{1,14}$",
 "slug": r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
 "latin": r"^[\u00C0-\u017F\w\s'\-]+$",
 "named": r"^(?<year>\d{4})-(?<month>\d{2})$",
 "ctrl": r"^[^\cA-\cZ]+$",
 "lookbehind": r"^(?<!x)abc$",
 "esc_hash": r"^\#[0-9a-f]{6}$",
 "esc_quote": r"^[^\"]+$",
 "bracket_dash": r"^[\w-\.]+$",
 "unicode_flag_class": r"^[\p{L}\p{N}_]+$",
 "empty_class_js": r"^[^]*$",
}
tools = []
for name, p in pats.items():
    tools.append({"name": "t_" + name, "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "pattern": p}}, "required": ["v"]}})
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "pat", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": tools}
    elif m["method"] == "ping": r = {}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "nope"}}), flush=True); continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
