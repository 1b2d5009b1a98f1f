// A support-ticket MCP server on the TypeScript SDK's low-level Server (setRequestHandler), the pattern of
// many published servers: hand-written JSON Schemas in ListTools, zod parsing in CallTool, McpError for an
// unknown tool and for arguments that do not parse. SDK defaults (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7).
//   node ts/lowlevel_tickets.mjs
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const TICKETS = [
  { id: 101, title: "Login fails", status: "open", priority: 2 },
  { id: 102, title: "Facture erronée", status: "closed", priority: 1 },
];

const GetTicket = z.object({ id: z.number().int().positive() });
const ListTickets = z.object({
  status: z.enum(["open", "closed", "all"]).default("all"),
  limit: z.number().int().min(1).max(50).default(20),
});

const server = new Server({ name: "tickets", version: "0.9.2" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "get_ticket",
      description: "Fetch one support ticket by id",
      inputSchema: { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] },
      annotations: { readOnlyHint: true },
    },
    {
      name: "list_tickets",
      description: "List tickets, newest first",
      inputSchema: {
        type: "object",
        properties: {
          status: { type: "string", enum: ["open", "closed", "all"], default: "all" },
          limit: { type: "integer", minimum: 1, maximum: 50, default: 20 },
        },
      },
      annotations: { readOnlyHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  console.error(`[tickets] ${name} ${JSON.stringify(args)}`);
  switch (name) {
    case "get_ticket": {
      const parsed = GetTicket.safeParse(args);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments: ${parsed.error.message}`);
      const ticket = TICKETS.find((t) => t.id === parsed.data.id);
      if (!ticket) return { content: [{ type: "text", text: `No ticket ${parsed.data.id}` }], isError: true };
      return { content: [{ type: "text", text: JSON.stringify(ticket, null, 2) }] };
    }
    case "list_tickets": {
      const parsed = ListTickets.safeParse(args ?? {});
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments: ${parsed.error.message}`);
      const rows = TICKETS.filter((t) => parsed.data.status === "all" || t.status === parsed.data.status);
      return { content: [{ type: "text", text: JSON.stringify(rows.slice(0, parsed.data.limit), null, 2) }] };
    }
    default:
      throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${name}`);
  }
});

await server.connect(new StdioServerTransport());
console.error("tickets MCP server running on stdio");
