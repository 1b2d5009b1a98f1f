// The inventory server of examples/mcp-buggy on the TypeScript SDK's low-level Server: hand-written JSON
// Schemas in tools/list, zod parsing in tools/call, a refusal as an isError result (SEP-1303), an unknown
// tool as McpError(InvalidParams). `makeServer(parsers)` takes the zod parsers, so a buggy server differs
// from control.mjs only by the parser it passes (or by one handler it replaces after).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export const STOCK = new Map([
  ["SKU-0001", { name: "hex bolt M6", qty: 120 }],
  ["SKU-0002", { name: "washer M6", qty: 40 }],
]);
const SKU = { type: "string", pattern: "^SKU-[0-9]{4}$", examples: ["SKU-0001"] };
const ITEM = {
  type: "object",
  properties: { sku: { type: "string" }, name: { type: "string" }, qty: { type: "integer" } },
  required: ["sku", "name", "qty"],
  additionalProperties: false,
};
export const TOOLS = [
  {
    name: "get_item",
    description: "Look up one item of the inventory by SKU.",
    inputSchema: { type: "object", properties: { sku: SKU }, required: ["sku"], additionalProperties: false },
    outputSchema: ITEM,
    annotations: { readOnlyHint: true },
  },
  {
    name: "add_stock",
    description: "Add received units of an item to the stock.",
    inputSchema: {
      type: "object",
      properties: { sku: SKU, qty: { type: "integer", minimum: 1, maximum: 1000 } },
      required: ["sku", "qty"],
      additionalProperties: false,
    },
    outputSchema: ITEM,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
];

export const sku = z.string().regex(/^SKU-[0-9]{4}$/);
export const strictParsers = {
  get_item: z.object({ sku }).strict(),
  add_stock: z.object({ sku, qty: z.number().int().min(1).max(1000) }).strict(),
};

function result(found) {
  return { content: [{ type: "text", text: JSON.stringify(found) }], structuredContent: found };
}

function refusal(text) {
  return { content: [{ type: "text", text }], isError: true };
}

export function makeServer(parsers = strictParsers) {
  const server = new Server({ name: "inventory", version: "1.4.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const parser = parsers[name];
    if (!parser) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const parsed = parser.safeParse(args ?? {});
    if (!parsed.success) return refusal(`Invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const item = STOCK.get(parsed.data.sku);
    if (!item) return refusal(`no item ${parsed.data.sku}`);
    if (name === "add_stock") item.qty += parsed.data.qty;
    return result({ sku: parsed.data.sku, name: item.name, qty: item.qty });
  });
  return server;
}

export async function serve(server) {
  await server.connect(new StdioServerTransport());
  console.error("inventory server on stdio");
}
