// A GitHub-issues style MCP server on the low-level Server that rate-limits tool calls (the MCP spec's
// Security Considerations: servers MUST rate limit tool invocations) by spacing them 300 ms apart, as API
// clients do to stay under an upstream quota; arguments are checked with zod once the call has its slot.
// SDK defaults (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7).
//   node ts/lowlevel_ratelimited.mjs
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const SPACING_MS = 300;
let nextSlot = 0;
async function rateLimit() {
  const now = Date.now();
  const wait = Math.max(0, nextSlot - now);
  nextSlot = Math.max(now, nextSlot) + SPACING_MS;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

const ISSUES = { 1: "Crash on start", 2: "Typo in README" };
const SearchIssues = z.object({ query: z.string().min(1), state: z.enum(["open", "closed"]).default("open") });

const server = new Server({ name: "issues", version: "2.2.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "search_issues",
      description: "Search issues by text",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string", minLength: 1 }, state: { type: "string", enum: ["open", "closed"] } },
        required: ["query"],
      },
      annotations: { readOnlyHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  await rateLimit();
  if (request.params.name !== "search_issues") {
    return { content: [{ type: "text", text: `Unknown tool: ${request.params.name}` }], isError: true };
  }
  const parsed = SearchIssues.safeParse(request.params.arguments ?? {});
  if (!parsed.success) {
    return { content: [{ type: "text", text: `Invalid arguments: ${parsed.error.issues.map((i) => i.message).join("; ")}` }], isError: true };
  }
  const hits = Object.entries(ISSUES).filter(([, title]) => title.toLowerCase().includes(parsed.data.query.toLowerCase()));
  return { content: [{ type: "text", text: JSON.stringify(hits.map(([id, title]) => ({ id: Number(id), title }))) }] };
});

await server.connect(new StdioServerTransport());
console.error("issues MCP server running on stdio (tool calls spaced 300 ms)");
