// A CRM contacts MCP server on McpServer + zod, whose inputs use zod's string formats (email, uuid, url,
// datetime, e164, ip, jwt, ...), the way zod users validate identifiers. SDK defaults (SDK 1.32.2, zod 4.6.7).
//   node ts/contacts_server.mjs
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "contacts", version: "3.1.0" });
const echo = (name) => async (args) => ({ content: [{ type: "text", text: `${name}: ${JSON.stringify(args)}` }] });

server.registerTool("find_contact", {
  description: "Find a contact by e-mail, phone or id",
  inputSchema: { email: z.string().email(), phone: z.string().e164(), contact_id: z.string().uuid() },
  annotations: { readOnlyHint: true },
}, echo("find_contact"));

server.registerTool("contact_activity", {
  description: "Activity of a contact between two dates",
  inputSchema: { website: z.string().url(), since: z.string().datetime(), day: z.string().date(), at: z.string().time() },
  annotations: { readOnlyHint: true },
}, echo("contact_activity"));

server.registerTool("check_host", {
  description: "Is a host on the allow list?",
  inputSchema: { host: z.hostname(), ipv4: z.string().ipv4(), ipv6: z.string().ipv6(), range: z.string().cidrv6() },
  annotations: { readOnlyHint: true },
}, echo("check_host"));

server.registerTool("inspect_token", {
  description: "Inspect an API token",
  inputSchema: { token: z.string().jwt(), payload: z.string().base64(), signature: z.string().base64url(), digest: z.hex() },
  annotations: { readOnlyHint: true },
}, echo("inspect_token"));

server.registerTool("resolve_ids", {
  description: "Resolve external ids",
  inputSchema: { a: z.string().cuid(), b: z.string().cuid2(), c: z.string().ulid(), d: z.string().nanoid(), e: z.ksuid(), f: z.xid(), g: z.guid() },
  annotations: { readOnlyHint: true },
}, echo("resolve_ids"));

server.registerTool("tag_note", {
  description: "Tag a note with an emoji and a word",
  inputSchema: { emoji: z.string().emoji(), word: z.string().regex(/^\p{L}+$/u), period: z.iso.duration() },
  annotations: { readOnlyHint: true },
}, echo("tag_note"));

// The e-mail pattern found in countless snippets (valid JavaScript: Annex B allows \w inside a range).
server.registerTool("lookup_by_email", {
  description: "Look a contact up by e-mail address",
  inputSchema: { email: z.string().regex(/^[\w-\.]+@([\w-]+\.)+[\w-]{2,4}$/) },
  annotations: { readOnlyHint: true },
}, echo("lookup_by_email"));

await server.connect(new StdioServerTransport());
console.error("contacts MCP server running on stdio");
