// The callproof conformance app as an MCP server, written the way the official TypeScript SDK teaches:
// McpServer.registerTool with zod input and output shapes, StdioServerTransport or StreamableHTTPServerTransport
// behind the SDK's createMcpExpressApp with requireBearerAuth. Argument decoding is left exactly as the SDK ships it (JSON.parse, zod's
// defaults): that is what callproof measures. The trusted context arrives as docs/mcp.md defines it: over stdio
// in the request's _meta["io.callproof/context"], over HTTP as a bearer JWT (HS256) checked with jose.
//
//   node dist/server.js           # stdio
//   node dist/server.js --http    # Streamable HTTP at CALLPROOF_MCP_URL

import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jwtVerify } from "jose";
import { z } from "zod";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { type CallToolResult, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Auth, type CatalogEntry, type Envelope, Executor } from "./pipeline.js";

const CONTEXT_KEY = "io.callproof/context";
const ISSUER = "callproof";
const MCP_URL = process.env.CALLPROOF_MCP_URL ?? "http://127.0.0.1:8000/mcp";

function loadCatalog(): CatalogEntry[] {
  if (process.env.CALLPROOF_CATALOG) return JSON.parse(readFileSync(process.env.CALLPROOF_CATALOG, "utf8"));
  const folder = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "scenarios", "catalog");
  return readdirSync(folder).filter((name) => name.endsWith(".json")).sort()
    .map((name) => JSON.parse(readFileSync(join(folder, name), "utf8")));
}

const catalog = loadCatalog();
const executors = new Map<string, Executor>();

/** One pipeline (and idempotency store) per downstream: one per process unless a token names its own. */
function executorFor(downstreamUrl: string): Executor {
  let executor = executors.get(downstreamUrl);
  if (executor === undefined) {
    executor = new Executor(catalog, downstreamUrl);
    executors.set(downstreamUrl, executor);
  }
  return executor;
}

// ---- the envelope as the tools' output shape ----------------------------------------------------------------

const errorBody = z.object({
  code: z.string(), category: z.string(), message: z.string(), retryable: z.boolean(), resolution: z.string(),
  expose_to_model: z.boolean(), expose_to_user: z.boolean(), details: z.record(z.string(), z.unknown()),
});
const meta = z.object({
  request_id: z.string(), call_id: z.string(), attempt: z.number().int(), idempotency_key: z.string().optional(),
  replayed: z.boolean(), reconciled: z.boolean().optional(),
});
const envelope = <T extends z.ZodRawShape>(result: T) => ({
  ok: z.boolean(), result: z.object(result).optional(), error: errorBody.optional(), meta,
});

// ---- the trusted context ------------------------------------------------------------------------------------

interface CallMeta { call_id?: string; business_request_id?: string | null; attempt?: number; budget_ms?: number;
  auth?: Auth }
interface Extra { _meta?: Record<string, unknown>; authInfo?: AuthInfo }

function authFromClaims(claims: Record<string, unknown>): Auth {
  const auth: Auth = { subject_id: String(claims.sub), tenant_id: String(claims.tenant_id ?? ""),
    scopes: String(claims.scope ?? "").split(" ").filter(Boolean), roles: (claims.roles as string[]) ?? [],
    identity: { valid: true, expires_at_ms: Number(claims.exp) * 1000 } };
  if (claims.allowed_tools !== undefined) auth.allowed_tools = claims.allowed_tools as string[];
  if (claims.approval !== undefined) auth.approval = claims.approval as Auth["approval"];
  return auth;
}

function answer(result: Envelope): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result, isError: !result.ok };
}

async function execute(tool: string, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const received = performance.now();
  const call = (extra._meta?.[CONTEXT_KEY] ?? {}) as CallMeta;
  const claims = extra.authInfo?.extra?.claims as Record<string, unknown> | undefined;
  // over HTTP the identity comes from the verified token only
  const auth = claims !== undefined ? authFromClaims(claims) : call.auth;
  const downstream = process.env.CALLPROOF_DOWNSTREAM_URL ?? (claims?.cp_downstream_url as string | undefined);
  const executor = executorFor(downstream ?? "http://127.0.0.1:9");
  return answer(await executor.execute(tool, args as Parameters<Executor["execute"]>[1], auth, call, received));
}

// ---- the six tools ------------------------------------------------------------------------------------------

const orderId = z.string().regex(/^ord_[A-Za-z0-9]+$/).max(64);

/** A server with the six tools; Streamable HTTP builds one per session, as the SDK's examples do. */
function buildServer(): McpServer {
  const server = new McpServer({ name: "callproof-mcp-typescript", version: "0.1.0" });

  server.registerTool("refund_order", {
    description: "Refund part or all of an order (null amount: everything refundable). Financial.",
    inputSchema: { order_id: orderId, amount: z.number().int().min(1).max(100_000_000).nullable(),
      reason: z.string().min(1).max(200) },
    outputSchema: envelope({ refund_id: z.string(), order_id: z.string(), amount: z.number().int(),
      status: z.enum(["completed", "pending"]) }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, (args, extra) => execute("refund_order", args, extra));

  server.registerTool("get_order", {
    description: "Read one of the caller's orders.",
    inputSchema: { order_id: orderId },
    outputSchema: envelope({ order_id: z.string(), status: z.string(), refundable_amount: z.number().int(),
      note: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, (args, extra) => execute("get_order", args, extra));

  server.registerTool("get_weather", {
    description: "Current weather for a location (null units: celsius).",
    inputSchema: { location: z.string().min(1).max(100), units: z.enum(["celsius", "fahrenheit"]).nullable() },
    outputSchema: envelope({ location: z.string(), temperature: z.number(), units: z.enum(["celsius", "fahrenheit"]),
      summary: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, (args, extra) => execute("get_weather", args, extra));

  server.registerTool("set_preference", {
    description: "Set one of the caller's own preferences.",
    inputSchema: { key: z.string().regex(/^[a-z][a-z_]{0,63}$/), value: z.string().max(256) },
    outputSchema: envelope({ key: z.string(), value: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, (args, extra) => execute("set_preference", args, extra));

  server.registerTool("send_email", {
    description: "Send an email on the caller's behalf.",
    inputSchema: { to: z.email().max(254), subject: z.string().min(1).max(200), body: z.string().max(10_000) },
    outputSchema: envelope({ message_id: z.string(), status: z.enum(["sent", "queued"]) }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, (args, extra) => execute("send_email", args, extra));

  server.registerTool("delete_account", {
    description: "Close an account for good; needs the user's approval of these exact arguments.",
    inputSchema: { account_id: z.string().regex(/^acct_[A-Za-z0-9]+$/).max(64) },
    outputSchema: envelope({ account_id: z.string(), deleted: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  }, (args, extra) => execute("delete_account", args, extra));

  return server;
}

// ---- transports ---------------------------------------------------------------------------------------------

/** Bearer JWTs signed by the harness: HS256, issuer `callproof`, audience this MCP endpoint. */
async function verifyAccessToken(token: string): Promise<AuthInfo> {
  const key = new TextEncoder().encode(process.env.CALLPROOF_TOKEN_KEY ?? "");
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], issuer: ISSUER, audience: MCP_URL,
      requiredClaims: ["exp", "iat", "sub"] });
    return { token, clientId: ISSUER, scopes: String(payload.scope ?? "").split(" ").filter(Boolean),
      expiresAt: payload.exp, resource: new URL(MCP_URL), extra: { claims: payload } };
  } catch (error) {
    throw new InvalidTokenError(error instanceof Error ? error.message : "invalid token");
  }
}

async function serveHttp() {
  const url = new URL(MCP_URL);
  const app = createMcpExpressApp({ host: url.hostname });
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const auth = process.env.CALLPROOF_TOKEN_KEY ? [requireBearerAuth({ verifier: { verifyAccessToken } })] : [];
  app.all(url.pathname, ...auth, async (req, res) => {
    const sessionId = req.header("mcp-session-id");
    let transport = sessionId === undefined ? undefined : transports.get(sessionId);
    if (transport === undefined) {
      if (sessionId !== undefined || !isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" },
          id: null });
        return;
      }
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created) });
      created.onclose = () => void (created.sessionId && transports.delete(created.sessionId));
      await buildServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  app.listen(Number(url.port || 80), url.hostname, () => console.error(`callproof-mcp-typescript: listening on ${MCP_URL}`));
}

if (process.argv.includes("--http")) {
  await serveHttp();
} else {
  await buildServer().connect(new StdioServerTransport());
}
