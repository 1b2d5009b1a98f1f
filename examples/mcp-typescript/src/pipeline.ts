// The conformance app's business pipeline after decoding: authorize → claim the idempotency key → business
// rules → the downstream → validate the output → record → envelope. A port of examples/python (same stages,
// same codes, same downstream contract from docs/protocol.md); decoding is the MCP SDK's job, not this file's.

import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
export type Envelope = JsonObject & { ok: boolean };

const LEASE_MARGIN_MS = 2000;
const MAX_ATTEMPTS = 5;
const CLAIM_ROUNDS = 4;
const SUPPORT_ROLE = "support_admin";
const MAX_RETRY_AFTER_S = 3600;

// code → [category, retryable, resolution, expose_to_user] (docs/errors.md)
const CODES: Record<string, [string, boolean, string, boolean]> = {
  invalid_json: ["input", false, "repair_arguments", false],
  invalid_arguments: ["input", false, "repair_arguments", false],
  schema_violation: ["input", false, "repair_arguments", false],
  tool_not_found: ["protocol", false, "refresh_tools", false],
  unauthorized: ["authorization", false, "reauthenticate", true],
  forbidden: ["authorization", false, "stop", true],
  approval_required: ["authorization", false, "ask_user", true],
  business_rejected: ["business", false, "ask_user", true],
  idempotency_conflict: ["idempotency", false, "stop", false],
  operation_in_progress: ["idempotency", true, "poll", true],
  dependency_unavailable: ["dependency", true, "retry_same_key", true],
  rate_limited: ["dependency", true, "retry_after", true],
  timeout_not_started: ["timeout", true, "retry_same_key", true],
  timeout_unknown: ["timeout", false, "reconcile", true],
  output_invalid: ["contract", false, "inspect", false],
  internal_error: ["internal", false, "inspect", false],
  retry_budget_exhausted: ["idempotency", false, "stop", true],
};

/** An error envelope's body: a code, a fixed message and details. */
export class Refusal extends Error {
  constructor(readonly code: string, message: string, readonly details: JsonObject = {}) {
    super(message);
  }

  body(): JsonObject {
    const [category, retryable, resolution, toUser] = CODES[this.code];
    return { code: this.code, category, message: this.message, retryable, resolution, expose_to_model: true,
      expose_to_user: toUser, details: this.details };
  }
}

/** Who is calling, from the trusted side (docs/protocol.md `auth`). */
export interface Auth {
  subject_id: string;
  tenant_id: string;
  scopes: string[];
  roles: string[];
  identity: { valid: boolean; expires_at_ms?: number };
  allowed_tools?: string[];
  approval?: { approval_id: string; subject_id: string; tenant_id: string; tool: string; arguments_hash: string;
    risk: string; expires_at_ms: number };
}

export interface CatalogEntry {
  name: string;
  risk: string;
  required_scopes?: string[];
  requires_approval?: boolean;
  repeatable?: boolean;
  resource?: { kind: string; argument: string } | null;
  business_rules?: { rule: string; argument: string; attribute: string; reason: string }[];
  rejection_reasons?: string[];
  input_schema: JsonObject;
  output_schema: JsonObject & { properties?: JsonObject };
  downstream: { resource?: string | null; invoke: string; status?: string | null };
}

// ---- canonical JSON (the approval hash and the idempotency key) ---------------------------------------------

export function canonical(value: Json): string {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return "{" + keys.map((key) => JSON.stringify(key) + ":" + canonical(value[key])).join(",") + "}";
  }
  return JSON.stringify(value);
}

export const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function deriveKey(auth: Auth, tool: string, canonicalArguments: string, businessRequestId: string | null) {
  const first = businessRequestId !== null
    ? '"business_request_id":' + JSON.stringify(businessRequestId)
    : '"arguments":' + canonicalArguments;
  return sha256Hex("{" + first + ',"subject_id":' + JSON.stringify(auth.subject_id) + ',"tenant_id":' +
    JSON.stringify(auth.tenant_id) + ',"tool":' + JSON.stringify(tool) + "}");
}

// ---- the downstream: HTTP bounded by the call's deadline ----------------------------------------------------

class NotSent extends Error {}
class Lost extends Error {}
class TimedOut extends Error {}

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

class CallContext {
  sent = false;
  constructor(readonly requestId: string, readonly auth: Auth, readonly deadline: number) {}
  remainingMs() {
    return Math.max(0, Math.floor(this.deadline - performance.now()));
  }
}

function send(base: URL, template: string, args: JsonObject, ctx: CallContext, key?: string): Promise<Answer> {
  const [method, path] = template.split(" ", 2);
  const target = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = name === "idempotency_key" ? key : args[name];
    const text = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
    return encodeURIComponent(text).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  });
  const remaining = ctx.remainingMs();
  if (remaining <= 0) return Promise.reject(new TimedOut());
  const headers: Record<string, string> = { "X-Deadline-Ms": String(remaining), "X-Tenant-Id": ctx.auth.tenant_id,
    "X-Subject-Id": ctx.auth.subject_id, "X-Request-Id": ctx.requestId };
  if (key !== undefined) headers["Idempotency-Key"] = key;
  let body: string | undefined;
  if (method === "POST" || method === "PUT") {
    body = canonical(args);
    headers["Content-Type"] = "application/json";
  }
  return new Promise((resolve, reject) => {
    let connected = false;
    const request = http.request({ host: base.hostname, port: base.port || 80, method, path: target, headers,
      agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers,
        body: Buffer.concat(chunks) }));
      response.on("error", () => reject(ctx.remainingMs() <= 0 ? new TimedOut() : new Lost()));
    });
    request.on("socket", (socket) => socket.on("connect", () => {
      connected = true;
      ctx.sent = true;
    }));
    request.setTimeout(remaining, () => request.destroy(new TimedOut()));
    request.on("error", (error) => {
      if (error instanceof TimedOut) reject(error);
      else if (!connected) reject(new NotSent());
      else reject(ctx.remainingMs() <= 0 ? new TimedOut() : new Lost());
    });
    request.end(body);
  });
}

function parseJson(body: Buffer): Json | undefined {
  try {
    return JSON.parse(body.toString("utf8")) as Json;
  } catch {
    return undefined;
  }
}

// ---- the executor ------------------------------------------------------------------------------------------

type State = "IN_PROGRESS" | "SUCCEEDED" | "FAILED_FINAL" | "FAILED_RETRYABLE" | "UNKNOWN";
interface StoredRecord { fingerprint: string; state: State; epoch: number; attempts: number; lease: number;
  deadline: number; outcome: Envelope | null }
type Held = [string, number];
type Meta = JsonObject;

class Tool {
  readonly sideEffect: boolean;
  readonly output: ValidateFunction;
  readonly declaredIn: Set<string>;
  readonly declaredOut: Set<string>;
  constructor(readonly entry: CatalogEntry, ajv: Ajv2020) {
    this.sideEffect = entry.risk !== "read";
    this.output = ajv.compile(entry.output_schema);
    this.declaredIn = new Set(Object.keys((entry.input_schema.properties as JsonObject | undefined) ?? {}));
    this.declaredOut = new Set(Object.keys(entry.output_schema.properties ?? {}));
  }
}

const succeed = (result: Json, meta: Meta): Envelope => ({ ok: true, result, meta: { ...meta } });
const fail = (refusal: Refusal, meta: Meta): Envelope => ({ ok: false, error: refusal.body(), meta: { ...meta } });
const inProgress = (retryAfterMs: number, reason?: string) => new Refusal("operation_in_progress",
  "another attempt of this business request is still in progress",
  { retry_after_ms: Math.max(100, retryAfterMs), ...(reason ? { reason } : {}) });

function replay(stored: Envelope | null, meta: Meta): Envelope {
  if (stored === null) return fail(new Refusal("internal_error", "the idempotency store failed", { reason: "store_failed" }), meta);
  const storedMeta = stored.meta as JsonObject;
  const answerMeta: JsonObject = { ...meta, replayed: true };
  delete answerMeta.reconciled;
  if (storedMeta.reconciled) answerMeta.reconciled = true;
  return stored.ok ? { ok: true, result: stored.result, meta: answerMeta } : { ok: false, error: stored.error, meta: answerMeta };
}

export class Executor {
  readonly tools = new Map<string, Tool>();
  private readonly records = new Map<string, StoredRecord>();
  private readonly base: URL;
  private readonly prefix = randomBytes(6).toString("hex");
  private counter = 0;

  constructor(catalog: CatalogEntry[], downstreamUrl: string) {
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    (addFormatsModule.default as unknown as (ajv: Ajv2020) => void)(ajv);
    for (const entry of catalog) this.tools.set(entry.name, new Tool(entry, ajv));
    this.base = new URL(downstreamUrl);
  }

  nextRequestId() {
    this.counter += 1;
    return `req_${this.prefix}${this.counter.toString(16).padStart(6, "0")}`;
  }

  /** Runs one decoded call; `arguments` are what the SDK validated. */
  async execute(toolName: string, args: JsonObject, auth: Auth | undefined, call: { call_id?: string;
    business_request_id?: string | null; attempt?: number; budget_ms?: number }, received: number): Promise<Envelope> {
    const requestId = this.nextRequestId();
    const meta: Meta = { request_id: requestId, call_id: String(call.call_id ?? ""), attempt: call.attempt ?? 1,
      replayed: false };
    if (auth === undefined) {
      return fail(new Refusal("unauthorized", "no caller identity came with the call", { reason: "identity_invalid" }), meta);
    }
    const ctx = new CallContext(requestId, auth, received + (call.budget_ms ?? 30_000));
    const tool = this.tools.get(toolName);
    if (tool === undefined) return fail(new Refusal("tool_not_found", "no tool has this exact name", { tool: toolName.slice(0, 64) }), meta);
    try {
      return await this.pipeline(tool, args, auth, call.business_request_id ?? null, ctx, meta);
    } catch (error) {
      if (error instanceof Refusal) return fail(error, meta);
      throw error;
    }
  }

  private async pipeline(tool: Tool, args: JsonObject, auth: Auth, businessRequestId: string | null,
    ctx: CallContext, meta: Meta): Promise<Envelope> {
    const canonicalArguments = canonical(args);
    const resource = await this.authorize(tool, args, sha256Hex(canonicalArguments), auth, ctx);
    let held: Held | null = null;
    if (tool.sideEffect) {
      const key = deriveKey(auth, tool.entry.name, canonicalArguments, businessRequestId);
      meta.idempotency_key = key;
      const claimed = await this.claim(key, sha256Hex(canonicalArguments), tool, args, ctx, meta);
      if (!Array.isArray(claimed)) return claimed;
      held = claimed;
    }
    let state: State;
    let result: Json | Refusal;
    try {
      this.checkBusinessRules(tool, args, resource);
      [state, result] = await this.callTool(tool, args, ctx, held);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      [state, result] = ["FAILED_FINAL", error];
    }
    if (!(result instanceof Refusal) && !tool.output(result)) {
      const first = tool.output.errors?.[0];
      state = "FAILED_FINAL";
      result = new Refusal("output_invalid", "the tool's output breaks its contract",
        { path: first?.instancePath ?? "", keyword: first?.keyword ?? "" });
    }
    const envelope = result instanceof Refusal ? fail(result, meta) : succeed(result, meta);
    if (held !== null) this.compareAndSet(held[0], "IN_PROGRESS", held[1], state, envelope);
    return envelope;
  }

  private async authorize(tool: Tool, args: JsonObject, argumentsHash: string, auth: Auth, ctx: CallContext) {
    if (!auth.identity.valid) throw new Refusal("unauthorized", "the caller's identity is not valid", { reason: "identity_invalid" });
    if (auth.identity.expires_at_ms !== undefined && auth.identity.expires_at_ms <= Date.now()) {
      throw new Refusal("unauthorized", "the caller's identity has expired", { reason: "identity_expired" });
    }
    if (auth.allowed_tools !== undefined && !auth.allowed_tools.includes(tool.entry.name)) {
      throw new Refusal("forbidden", "the caller may not use this tool", { reason: "tool_not_allowed" });
    }
    const missing = (tool.entry.required_scopes ?? []).filter((scope) => !auth.scopes.includes(scope));
    if (missing.length > 0) {
      throw new Refusal("forbidden", "the caller lacks a required scope", { reason: "missing_scope", required_scopes: missing });
    }
    if (tool.entry.requires_approval) this.checkApproval(tool, argumentsHash, auth);
    const binding = tool.entry.resource;
    if (!binding || typeof args[binding.argument] !== "string" || !tool.entry.downstream.resource) return null;
    const unavailable = new Refusal("dependency_unavailable", "the system of record could not be reached",
      { reason: "resource_lookup_failed" });
    if (ctx.remainingMs() <= 0) {
      throw new Refusal("timeout_not_started", "the deadline passed before access could be checked", { reason: "deadline_elapsed" });
    }
    let answer: Answer;
    try {
      answer = await send(this.base, tool.entry.downstream.resource, args, ctx);
    } catch (error) {
      if (error instanceof TimedOut) {
        throw new Refusal("timeout_not_started", "the deadline passed while checking access", { reason: "deadline_elapsed" });
      }
      throw unavailable;
    } finally {
      ctx.sent = false;
    }
    let resource: JsonObject | null = null;
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = parseJson(answer.body);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) ||
        typeof parsed.tenant_id !== "string" || typeof parsed.owner_id !== "string") throw unavailable;
      resource = parsed;
    } else if (answer.status !== 404) {
      throw unavailable;
    }
    const owned = resource !== null && resource.tenant_id === auth.tenant_id &&
      (resource.owner_id === auth.subject_id || auth.roles.includes(SUPPORT_ROLE));
    if (!owned) throw new Refusal("forbidden", "the resource is not accessible", { reason: "resource_not_accessible" });
    return resource;
  }

  private checkApproval(tool: Tool, argumentsHash: string, auth: Auth) {
    const approval = auth.approval;
    const name = tool.entry.name;
    if (approval === undefined) {
      throw new Refusal("approval_required", "this operation needs the user's approval", { reason: "approval_missing", tool: name });
    }
    const fields: [string, boolean][] = [["subject_id", approval.subject_id === auth.subject_id],
      ["tenant_id", approval.tenant_id === auth.tenant_id], ["tool", approval.tool === name],
      ["arguments_hash", approval.arguments_hash === argumentsHash], ["risk", approval.risk === tool.entry.risk]];
    for (const [field, matches] of fields) {
      if (!matches) {
        throw new Refusal("approval_required", "the approval does not cover this exact operation",
          { reason: "approval_mismatch", tool: name, mismatch: field, approval_id: approval.approval_id });
      }
    }
    if (approval.expires_at_ms <= Date.now()) {
      throw new Refusal("approval_required", "the approval has expired",
        { reason: "approval_expired", tool: name, approval_id: approval.approval_id });
    }
  }

  private checkBusinessRules(tool: Tool, args: JsonObject, resource: JsonObject | null) {
    for (const rule of tool.entry.business_rules ?? []) {
      if (rule.rule !== "at_most") continue;
      const wanted = args[rule.argument];
      const limit = resource?.[rule.attribute];
      if (typeof wanted === "number" && typeof limit === "number" && wanted > limit) {
        throw new Refusal("business_rejected", "a business rule refused the request", { reason: rule.reason, field: rule.argument });
      }
    }
  }

  // -- idempotency: a compare-and-set state machine in memory (JavaScript runs it without interleaving) --

  private compareAndSet(key: string, expected: State, epoch: number, state: State, outcome: Envelope | null) {
    const record = this.records.get(key);
    if (record === undefined || record.state !== expected || record.epoch !== epoch) return false;
    Object.assign(record, { state, outcome });
    return true;
  }

  private async claim(key: string, fingerprint: string, tool: Tool, args: JsonObject, ctx: CallContext,
    meta: Meta): Promise<Held | Envelope> {
    const deadline = Date.now() + ctx.remainingMs();
    const lease = deadline + LEASE_MARGIN_MS;
    for (let round = 0; round < CLAIM_ROUNDS; round += 1) {
      const record = this.records.get(key);
      if (record === undefined) {
        this.records.set(key, { fingerprint, state: "IN_PROGRESS", epoch: 1, attempts: 1, lease, deadline, outcome: null });
        return [key, 1];
      }
      if (record.fingerprint !== fingerprint) {
        return fail(new Refusal("idempotency_conflict", "this business request was already made with different arguments",
          { reason: "arguments_changed" }), meta);
      }
      const now = Date.now();
      const { state, epoch, attempts } = record;
      if (state === "IN_PROGRESS" && record.lease > now) return fail(inProgress(record.lease - now), meta);
      if (state === "IN_PROGRESS") {
        record.state = "UNKNOWN";
      } else if (state === "SUCCEEDED" || state === "FAILED_FINAL") {
        return replay(record.outcome, meta);
      } else if (state === "FAILED_RETRYABLE" && attempts >= MAX_ATTEMPTS) {
        const envelope = fail(new Refusal("retry_budget_exhausted", "this business request failed too often; retries stop here",
          { attempts }), meta);
        Object.assign(record, { state: "FAILED_FINAL", outcome: envelope });
        return envelope;
      } else if (state === "FAILED_RETRYABLE") {
        Object.assign(record, { state: "IN_PROGRESS", outcome: null, epoch: epoch + 1, attempts: attempts + 1, lease, deadline });
        return [key, epoch + 1];
      } else {
        const answer = await this.reconcile(key, epoch, record.deadline, record.outcome, tool, args, ctx, meta);
        if (answer !== null) return answer;
      }
    }
    return fail(inProgress(0), meta);
  }

  private async reconcile(key: string, epoch: number, earlierDeadline: number, outcome: Envelope | null, tool: Tool,
    args: JsonObject, ctx: CallContext, meta: Meta): Promise<Envelope | null> {
    const template = tool.entry.downstream.status;
    if (!template) {
      if (tool.entry.repeatable) {
        this.compareAndSet(key, "UNKNOWN", epoch, "FAILED_RETRYABLE", null);
        return null;
      }
      if (outcome !== null) return replay(outcome, meta);
      return fail(new Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot be " +
        "reconciled automatically", { reason: "unreconcilable" }), meta);
    }
    const failed = fail(new Refusal("dependency_unavailable", "the outcome of an earlier attempt could not be checked; " +
      "retry later", { reason: "reconciliation_failed" }), meta);
    let answer: Answer;
    try {
      answer = await send(this.base, template, args, ctx, key);
    } catch {
      return failed;
    }
    const found = answer.status === 404 ? { status: "not_found" } : answer.status === 200 ? parseJson(answer.body) : undefined;
    const kind = found !== null && typeof found === "object" && !Array.isArray(found) ? found.status : undefined;
    if (kind === "completed" && found !== null && typeof found === "object" && !Array.isArray(found)) {
      meta.reconciled = true;
      const result = project(tool, found.result ?? null);
      const envelope = tool.output(result)
        ? succeed(result, meta)
        : fail(new Refusal("output_invalid", "the tool's output breaks its contract",
          { path: tool.output.errors?.[0]?.instancePath ?? "", keyword: tool.output.errors?.[0]?.keyword ?? "" }), meta);
      this.compareAndSet(key, "UNKNOWN", epoch, envelope.ok ? "SUCCEEDED" : "FAILED_FINAL", envelope);
      return envelope;
    }
    if (kind === "rejected") {
      meta.reconciled = true;
      const envelope = fail(rejection(tool, answer.body, "downstream_rejected"), meta);
      this.compareAndSet(key, "UNKNOWN", epoch, "FAILED_FINAL", envelope);
      return envelope;
    }
    if (kind === "pending") return fail(inProgress(0, "downstream_pending"), meta);
    if (kind === "not_found") {
      const now = Date.now();
      if (earlierDeadline > now) return fail(inProgress(earlierDeadline - now, "awaiting_earlier_deadline"), meta);
      this.compareAndSet(key, "UNKNOWN", epoch, "FAILED_RETRYABLE", null);
      return null;
    }
    return failed;
  }

  private async callTool(tool: Tool, args: JsonObject, ctx: CallContext, held: Held | null): Promise<[State, Json | Refusal]> {
    const notStarted = new Refusal("timeout_not_started", "the deadline passed before the request was sent", { reason: "deadline_elapsed" });
    if (ctx.remainingMs() <= 0) return ["FAILED_RETRYABLE", notStarted];
    let answer: Answer;
    try {
      answer = await send(this.base, tool.entry.downstream.invoke, args, ctx, held?.[0]);
    } catch (error) {
      if (error instanceof NotSent) {
        return ["FAILED_RETRYABLE", new Refusal("dependency_unavailable", "the downstream service could not be reached; " +
          "nothing was sent", { reason: "not_sent" })];
      }
      if (!ctx.sent) return ["FAILED_RETRYABLE", notStarted];
      if (!tool.sideEffect) {
        return ["FAILED_RETRYABLE", new Refusal("dependency_unavailable", "the downstream did not answer in time; " +
          "reading again is safe", { reason: "no_answer" })];
      }
      return ["UNKNOWN", new Refusal("timeout_unknown", "the request was sent and its outcome is unknown",
        { reason: error instanceof TimedOut ? "deadline_elapsed" : "connection_lost" })];
    }
    const { status, headers, body } = answer;
    if (status >= 200 && status < 300) {
      const parsed = parseJson(body);
      if (parsed === undefined) {
        return ["FAILED_FINAL", new Refusal("output_invalid", "the tool's answer could not be read",
          { reason: "unreadable", downstream_status: status })];
      }
      return ["SUCCEEDED", project(tool, parsed)];
    }
    if (status === 429) {
      const seconds = Number.parseInt(String(headers["retry-after"] ?? "").trim(), 10);
      const waitMs = Number.isNaN(seconds) ? 1000 : Math.min(seconds, MAX_RETRY_AFTER_S) * 1000;
      return ["FAILED_RETRYABLE", new Refusal("rate_limited", "the downstream service is rate limiting; retry later",
        { retry_after_ms: waitMs })];
    }
    if (status >= 500 && status < 600) {
      return ["FAILED_RETRYABLE", new Refusal("dependency_unavailable", "the downstream service is unavailable and did " +
        "not apply the request", { reason: "unavailable", downstream_status: status })];
    }
    if (status >= 300 && status < 400) {
      // A redirect is an answer, never followed (http.request does not): the request arrived and nothing says
      // whether it was applied, so a side effect's outcome is unknown and a read may be repeated.
      if (!tool.sideEffect) {
        return ["FAILED_RETRYABLE", new Refusal("dependency_unavailable", "the downstream answered outside its " +
          "contract; reading again is safe", { reason: "unexpected_answer", downstream_status: status })];
      }
      return ["UNKNOWN", new Refusal("timeout_unknown", "the downstream answered outside its contract after the " +
        "request was sent; its outcome is unknown", { reason: "unexpected_answer", downstream_status: status })];
    }
    const fallback = ({ 404: "not_found", 409: "downstream_rejected", 422: "downstream_rejected" } as Record<number, string>)[status];
    const refusal = fallback ? rejection(tool, body, fallback)
      : new Refusal("business_rejected", "a business rule refused the request", { reason: "downstream_refused" });
    refusal.details.downstream_status = status;
    return ["FAILED_FINAL", refusal];
  }
}

/** Keeps the members the output schema declares: the downstream's record may hold internal fields. */
function project(tool: Tool, value: Json): Json {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && tool.declaredOut.size > 0) {
    return Object.fromEntries(Object.entries(value).filter(([name]) => tool.declaredOut.has(name)));
  }
  return value;
}

function rejection(tool: Tool, body: Buffer, defaultReason: string): Refusal {
  const parsed = parseJson(body);
  const error = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed.error : undefined;
  const fields = error !== null && typeof error === "object" && !Array.isArray(error) ? error : {};
  const reason = typeof fields.reason === "string" && (tool.entry.rejection_reasons ?? []).includes(fields.reason)
    ? fields.reason : defaultReason;
  const refusal = new Refusal("business_rejected", "a business rule refused the request", { reason });
  if (typeof fields.field === "string" && tool.declaredIn.has(fields.field)) refusal.details.field = fields.field;
  return refusal;
}
