"""The Python SDK example server (examples/mcp-python/server.py) with one bug: `delete_account` carries the read
tools' annotations (`readOnlyHint: true`), as a copied decorator leaves them, so a client that trusts the hint
closes an account without asking anyone.

Where it ships: copy-pasted `@mcp.tool(annotations=...)` or `registerTool` blocks; no SDK checks a hint against
what the tool does. docs/conformance-app.md gives `delete_account` the risk `destructive`; MCP schema.ts
`ToolAnnotations`: `readOnlyHint` "If true, the tool does not modify its environment". Written blind in round 14
(examples/buggy/BLIND14.md, `ts_delete_annotated_readonly`, there on the TypeScript SDK example);
`harness/tests/conform_mcp.rs` holds it to failing `annotations-match-risk`.
"""

from mcp.types import ToolAnnotations

from _example import server

# THE BUG: the read tools' annotations on the destructive tool.
server.mcp._tool_manager.get_tool("delete_account").annotations = ToolAnnotations(readOnlyHint=True,
                                                                                 openWorldHint=True)

if __name__ == "__main__":
    server.main()
