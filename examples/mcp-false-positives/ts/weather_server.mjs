// A weather MCP server written the way the TypeScript SDK README teaches: McpServer.registerTool with zod shapes,
// an outputSchema with structuredContent, resources and prompts, logging to stderr (console.error).
// SDK defaults throughout (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7).
//   node ts/weather_server.mjs
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "weather", version: "1.4.0" });

const CITIES = { paris: { temp: 18.5, cond: "cloudy" }, "são paulo": { temp: 27, cond: "sunny" }, tokyo: { temp: 21, cond: "rain" } };

server.registerTool(
  "get_forecast",
  {
    title: "Forecast",
    description: "Weather forecast for a city — météo, 天気.",
    inputSchema: {
      city: z.string().min(1).describe("City name"),
      days: z.number().int().min(1).max(14).default(3),
      units: z.enum(["metric", "imperial"]).default("metric"),
      include_hourly: z.boolean().optional(),
    },
    outputSchema: {
      city: z.string(),
      units: z.enum(["metric", "imperial"]),
      days: z.array(z.object({ day: z.number().int(), temp: z.number(), conditions: z.string() })),
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  async ({ city, days, units }) => {
    console.error(`[weather] forecast ${city} ${days} ${units}`);
    const base = CITIES[city.toLowerCase()] ?? { temp: 15, cond: "unknown" };
    const structured = {
      city,
      units,
      days: Array.from({ length: days }, (_, i) => ({ day: i + 1, temp: units === "metric" ? base.temp : base.temp * 1.8 + 32, conditions: base.cond })),
    };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  },
);

server.registerTool(
  "compare_cities",
  {
    description: "Compare the current temperature of several cities.",
    inputSchema: {
      cities: z.array(z.string()).min(2).max(10),
      threshold: z.number().optional(),
      options: z.object({ sort: z.enum(["asc", "desc"]), limit: z.number().int().positive() }).optional(),
    },
    annotations: { readOnlyHint: true },
  },
  async ({ cities, options }) => {
    const rows = cities.map((c) => `${c}: ${(CITIES[c.toLowerCase()] ?? { temp: "?" }).temp}`);
    if (options?.sort === "desc") rows.reverse();
    return { content: [{ type: "text", text: rows.join("\n") }] };
  },
);

server.registerTool(
  "list_alerts",
  { description: "Active weather alerts (no arguments).", annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: "text", text: "no active alerts" }] }),
);

const ALERTS = [
  "Orages violents attendus ⛈️ puis grêle 🌨️ sur Lyon ce soir",
  "Canicule : vigilance orange dans le Rhône jusqu'à dimanche",
];

server.registerTool(
  "alert_headlines",
  {
    description: "Short headlines of today's alerts (each cut to 40 characters).",
    annotations: { readOnlyHint: true },
  },
  async () => ({
    content: [{ type: "text", text: ALERTS.map((a) => (a.length > 40 ? `${a.slice(0, 40)}…` : a)).join("\n") }],
  }),
);

server.registerTool(
  "station_status",
  {
    description: "Status of a weather station.",
    inputSchema: { station_id: z.string().regex(/^[A-Z]{4}$/) },
    annotations: { readOnlyHint: true },
  },
  async ({ station_id }) => {
    throw new Error(`station ${station_id} is offline`);
  },
);

server.registerTool(
  "get_city",
  {
    description: "Coordinates and timezone of a known city.",
    inputSchema: { name: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ name }) => {
    const city = CITIES[name.toLowerCase()];
    if (!city) throw new Error(`Unknown city: ${name}`);
    return { content: [{ type: "text", text: JSON.stringify({ name, ...city }) }] };
  },
);

server.registerTool(
  "subscribe_alerts",
  {
    description: "Subscribe an e-mail address to alerts for a region.",
    inputSchema: { email: z.string().email(), region: z.string(), severity: z.enum(["minor", "severe"]).default("severe") },
    annotations: { destructiveHint: false, idempotentHint: true },
  },
  async ({ email, region }) => ({ content: [{ type: "text", text: `subscribed ${email} to ${region}` }] }),
);

server.registerResource(
  "cities",
  "weather://cities",
  { title: "Known cities", mimeType: "application/json" },
  async (uri) => ({ contents: [{ uri: uri.href, text: JSON.stringify(Object.keys(CITIES)) }] }),
);

server.registerResource(
  "city",
  new ResourceTemplate("weather://city/{name}", { list: undefined }),
  { title: "One city" },
  async (uri, { name }) => ({ contents: [{ uri: uri.href, text: JSON.stringify(CITIES[name] ?? null) }] }),
);

server.registerPrompt(
  "weather_report",
  { description: "Write a weather report", argsSchema: { city: z.string() } },
  ({ city }) => ({ messages: [{ role: "user", content: { type: "text", text: `Write a weather report for ${city}.` } }] }),
);

const transport = new StdioServerTransport();
await server.connect(transport);
console.error("weather MCP server running on stdio");
