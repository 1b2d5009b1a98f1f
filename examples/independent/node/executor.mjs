#!/usr/bin/env node
// freshnode: a callproof/1 executor for the conformance app, written from the docs.
import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Parser, DecodeError, decodeStrict, toPlain, structuralCheck, canonical, position, TOO_DEEP } from './json.mjs';
import { validate, project, typeOf } from './schema.mjs';

const PROTOCOL = 'callproof/1';
const MAX_LINE = 16 * 1024 * 1024;
const MAX_ARGS = 1024 * 1024;
const MAX_DEPTH = 64;
const MAX_IN_FLIGHT = 64;
const RETRY_BUDGET = 5;
const LEASE_GRACE_MS = 2000;
const MAX_BODY = 1024 * 1024;
const INSTANCE = crypto.randomBytes(8).toString('hex');

const log = (...a) => process.stderr.write(`[freshnode] ${a.join(' ')}\n`);

// ---------------------------------------------------------------- error table
const TABLE = {
  invalid_json: ['input', false, 'repair_arguments', false],
  invalid_arguments: ['input', false, 'repair_arguments', false],
  schema_violation: ['input', false, 'repair_arguments', false],
  tool_not_found: ['protocol', false, 'refresh_tools', false],
  unauthorized: ['authorization', false, 'reauthenticate', true],
  forbidden: ['authorization', false, 'stop', true],
  approval_required: ['authorization', false, 'ask_user', true],
  business_rejected: ['business', false, 'ask_user', true],
  idempotency_conflict: ['idempotency', false, 'stop', false],
  operation_in_progress: ['idempotency', true, 'poll', true],
  dependency_unavailable: ['dependency', true, 'retry_same_key', true],
  rate_limited: ['dependency', true, 'retry_after', true],
  timeout_not_started: ['timeout', true, 'retry_same_key', true],
  timeout_unknown: ['timeout', false, 'reconcile', true],
  output_invalid: ['contract', false, 'inspect', false],
  internal_error: ['internal', false, 'inspect', false],
  retry_budget_exhausted: ['idempotency', false, 'stop', true],
};

const MESSAGES = {
  invalid_json: 'The arguments are not valid JSON.',
  invalid_arguments: 'The arguments break a structural rule.',
  schema_violation: "The arguments do not match the tool's input schema.",
  tool_not_found: 'No tool has this name.',
  unauthorized: "The caller's identity is not valid.",
  forbidden: 'The caller may not do this.',
  approval_required: 'This operation needs an approval that covers it.',
  business_rejected: 'The request was refused by a business rule.',
  idempotency_conflict: 'This business request was already made with other arguments.',
  operation_in_progress: 'This operation is still in progress.',
  dependency_unavailable: 'A service this tool depends on is unavailable; nothing was applied.',
  rate_limited: 'The service is rate limiting requests; nothing was applied.',
  timeout_not_started: 'The time budget ran out before the operation could start.',
  timeout_unknown: 'The outcome of the operation is unknown.',
  output_invalid: "The tool's answer does not match its output contract.",
  internal_error: 'The executor failed internally.',
  retry_budget_exhausted: 'This operation failed too many times; it will not be retried.',
};

function err(code, details = {}, message) {
  const [category, retryable, resolution, user] = TABLE[code];
  return {
    code, category, message: message || MESSAGES[code], retryable, resolution,
    expose_to_model: true, expose_to_user: user, details,
  };
}

// ---------------------------------------------------------------- I/O
function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function sendError(id, message) {
  send({ type: 'error', id: id ?? null, message });
}

// ---------------------------------------------------------------- store
class FileStore {
  constructor(session, downstream) {
    const dir = path.join(os.tmpdir(), 'freshnode-callproof');
    fs.mkdirSync(dir, { recursive: true });
    const name = crypto.createHash('sha256').update(`${session}\u0000${downstream}`).digest('hex');
    this.file = path.join(dir, `${name}.json`);
    this.data = { records: {}, tasks: {} };
    try {
      this.data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch { /* a new store */ }
    let changed = false;
    for (const rec of Object.values(this.data.records)) {
      if (rec.state === 'IN_PROGRESS' && rec.owner !== INSTANCE) {
        rec.state = 'UNKNOWN'; // its holder was a process that is gone
        rec.updated_ms = Date.now();
        changed = true;
      }
    }
    if (changed) this.flush();
  }
  flush() {
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.data));
    fs.renameSync(tmp, this.file);
  }
  get(key) { return this.data.records[key]; }
  put(key, rec) { rec.updated_ms = Date.now(); this.data.records[key] = rec; this.flush(); }
  getTask(k) { return this.data.tasks[k]; }
  putTask(k, v) { this.data.tasks[k] = v; this.flush(); }
}

// ---------------------------------------------------------------- state
let hello = null;
let catalog = new Map();
let store = null;
let baseUrl = null;

// ---------------------------------------------------------------- helpers
const sha256 = (b) => crypto.createHash('sha256').update(b).digest();

function idempotencyKey(tenant, subject, tool, brid, argsHashRaw) {
  const FF = Buffer.from([0xff]);
  const parts = [Buffer.from(tenant, 'utf8'), FF, Buffer.from(subject, 'utf8'), FF, Buffer.from(tool, 'utf8'), FF];
  if (brid !== null && brid !== undefined) parts.push(Buffer.from('b'), Buffer.from(String(brid), 'utf8'));
  else parts.push(Buffer.from('a'), argsHashRaw);
  return sha256(Buffer.concat(parts)).toString('hex');
}

function foundKind(v) {
  const t = typeOf(v);
  return t === 'integer' ? 'number' : t;
}

function fillTemplate(tpl, args, key) {
  const sp = tpl.indexOf(' ');
  const method = tpl.slice(0, sp);
  const p = tpl.slice(sp + 1).replace(/\{([A-Za-z0-9_]+)\}/g, (_, name) => {
    if (name === 'idempotency_key') return key ?? '';
    const v = args[name];
    if (v === null || v === undefined) return '';
    return encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
  });
  return { method, path: p };
}

function httpCall({ method, path: p, headers, body, deadline }) {
  return new Promise((resolve) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) { resolve({ kind: 'error', sent: false, timedOut: true }); return; }
    const base = new URL(baseUrl);
    const fullPath = base.pathname.replace(/\/$/, '') + p;
    const h = { ...headers, 'X-Deadline-Ms': String(Math.floor(remaining)), Accept: 'application/json' };
    let payload = null;
    if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body), 'utf8');
      h['Content-Type'] = 'application/json';
      h['Content-Length'] = String(payload.length);
    }
    const mod = base.protocol === 'https:' ? https : http;
    let done = false;
    let connected = false;
    let timedOut = false;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); resolve(r); } };
    const req = mod.request({
      protocol: base.protocol, hostname: base.hostname, port: base.port || undefined,
      method, path: fullPath, headers: h, agent: false,
    });
    const timer = setTimeout(() => { timedOut = true; req.destroy(new Error('deadline')); }, remaining);
    req.on('socket', (s) => {
      if (!s.connecting) connected = true;
      s.once('connect', () => { connected = true; });
    });
    req.on('response', (res) => {
      const chunks = [];
      let size = 0;
      let tooLarge = false;
      res.on('data', (c) => {
        size += c.length;
        if (size > MAX_BODY) { tooLarge = true; res.destroy(); return; }
        chunks.push(c);
      });
      res.on('end', () => finish({ kind: 'response', status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), complete: true }));
      const broken = () => finish({ kind: 'response', status: res.statusCode, headers: res.headers, body: null, complete: false, tooLarge, timedOut });
      res.on('aborted', broken);
      res.on('error', broken);
      res.on('close', () => { if (!res.complete) broken(); });
    });
    req.on('error', (e) => finish({ kind: 'error', sent: connected, timedOut, code: e.code }));
    if (payload) req.end(payload); else req.end();
  });
}

function parseJsonBody(buf) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function retryAfterMs(h) {
  const v = h['retry-after'];
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return parseInt(v, 10) * 1000;
  if (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(parseFloat(v) * 1000);
  return 1000;
}

function rejection(tool, resp) {
  const parsed = resp.complete && resp.body ? parseJsonBody(resp.body) : { ok: false };
  const e = parsed.ok && parsed.value && typeof parsed.value === 'object' ? parsed.value.error : null;
  const details = {};
  const allowed = tool.rejection_reasons || [];
  if (e && typeof e.reason === 'string' && allowed.includes(e.reason)) details.reason = e.reason;
  else details.reason = resp.status === 404 ? 'not_found' : 'downstream_rejected';
  const props = tool.input_schema?.properties || {};
  if (e && typeof e.field === 'string' && Object.prototype.hasOwnProperty.call(props, e.field)) details.field = e.field;
  details.downstream_status = resp.status;
  return err('business_rejected', details);
}

function outputCheck(tool, value) {
  const projected = project(tool.output_schema, value);
  const v = validate(tool.output_schema, projected);
  if (v.length) return { ok: false, error: err('output_invalid', { path: v[0].path, keyword: v[0].keyword }) };
  return { ok: true, result: projected };
}

// Interpret the answer to the tool's own request. Returns {envelopeError|result, state}
function interpret(tool, resp, sideEffect) {
  if (resp.kind === 'error') {
    if (!resp.sent) {
      if (resp.timedOut) return { error: err('timeout_not_started', { reason: 'deadline_elapsed' }), state: 'FAILED_RETRYABLE' };
      return { error: err('dependency_unavailable', { reason: 'not_sent' }), state: 'FAILED_RETRYABLE' };
    }
    if (sideEffect) return { error: err('timeout_unknown', { reason: resp.timedOut ? 'deadline_elapsed' : 'connection_lost' }), state: 'UNKNOWN' };
    return { error: err('dependency_unavailable', { reason: 'no_answer' }), state: 'FAILED_RETRYABLE' };
  }
  const st = resp.status;
  if (st >= 200 && st < 300) {
    if (!resp.complete) {
      if (sideEffect) return { error: err('timeout_unknown', { reason: resp.timedOut ? 'deadline_elapsed' : 'connection_lost' }), state: 'UNKNOWN' };
      return { error: err('dependency_unavailable', { reason: 'no_answer' }), state: 'FAILED_RETRYABLE' };
    }
    const parsed = parseJsonBody(resp.body);
    if (!parsed.ok) return { error: err('output_invalid', { reason: 'unreadable', downstream_status: st }), state: 'FAILED_FINAL' };
    const chk = outputCheck(tool, parsed.value);
    if (!chk.ok) return { error: chk.error, state: 'FAILED_FINAL' };
    return { result: chk.result, state: 'SUCCEEDED' };
  }
  if (st >= 300 && st < 400) {
    if (sideEffect) return { error: err('timeout_unknown', { reason: 'unexpected_answer', downstream_status: st }), state: 'UNKNOWN' };
    return { error: err('dependency_unavailable', { reason: 'unexpected_answer', downstream_status: st }), state: 'FAILED_RETRYABLE' };
  }
  if (st === 429) return { error: err('rate_limited', { retry_after_ms: retryAfterMs(resp.headers), downstream_status: 429 }), state: 'FAILED_RETRYABLE' };
  if (st >= 500) return { error: err('dependency_unavailable', { reason: 'unavailable', downstream_status: st }), state: 'FAILED_RETRYABLE' };
  if (st >= 400) return { error: rejection(tool, resp), state: 'FAILED_FINAL' };
  // 1xx or anything else outside the contract
  if (sideEffect) return { error: err('timeout_unknown', { reason: 'unexpected_answer', downstream_status: st }), state: 'UNKNOWN' };
  return { error: err('dependency_unavailable', { reason: 'unexpected_answer', downstream_status: st }), state: 'FAILED_RETRYABLE' };
}

// ---------------------------------------------------------------- decoding
function decodeArguments(call, lineValue) {
  const a = call.arguments;
  if (a && Object.prototype.hasOwnProperty.call(a, 'raw') && typeof a.raw === 'string') {
    const raw = a.raw;
    const buf = Buffer.from(raw, 'utf8');
    if (buf.length > MAX_ARGS) return { error: err('invalid_arguments', { reason: 'too_large', limit_bytes: MAX_ARGS, size_bytes: buf.length }) };
    if (!raw.isWellFormed()) {
      // a lone surrogate code unit in the text itself
      let i = 0;
      for (; i < raw.length; i++) {
        const c = raw.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff) { const d = raw.charCodeAt(i + 1); if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; } break; }
        if (c >= 0xdc00 && c <= 0xdfff) break;
      }
      const off = Buffer.byteLength(raw.slice(0, i), 'utf8');
      return { error: err('invalid_json', { ...position(buf, off), hint: 'lone_surrogate' }) };
    }
    try {
      return { value: decodeStrict(buf, MAX_DEPTH) };
    } catch (e) {
      if (e instanceof DecodeError) return { error: err(e.code, e.details) };
      throw e;
    }
  }
  if (a && Object.prototype.hasOwnProperty.call(a, 'value')) {
    const v = lineValue.v;
    const size = lineValue.size;
    if (size > MAX_ARGS) return { error: err('invalid_arguments', { reason: 'too_large', limit_bytes: MAX_ARGS, size_bytes: size }) };
    const s = structuralCheck(v, MAX_DEPTH);
    if (s) return { error: err('invalid_arguments', s) };
    return { value: v };
  }
  return { error: err('invalid_arguments', { reason: 'not_an_object', found: 'null' }) };
}

function schemaError(violations) {
  const first = violations[0];
  const details = {
    path: first.path, keyword: first.keyword,
    violations: violations.slice(0, 10).map((v) => ({ path: v.path, keyword: v.keyword, message: v.message })),
    violations_truncated: violations.length > 10,
  };
  const missing = violations.filter((v) => v.missing).map((v) => v.missing);
  const unexpected = violations.filter((v) => v.unexpected).map((v) => v.unexpected);
  if (missing.length) details.missing = missing;
  if (unexpected.length) details.unexpected = unexpected;
  return err('schema_violation', details);
}

// ---------------------------------------------------------------- the pipeline
async function execute(msg, lineValue) {
  const readAt = Date.now();
  const budget = Number.isFinite(msg.budget_ms) ? msg.budget_ms : 0;
  const deadline = readAt + budget;
  const call = msg.call || {};
  const auth = msg.auth || {};
  const meta = {
    request_id: 'req_' + crypto.randomBytes(12).toString('hex'),
    call_id: typeof call.call_id === 'string' ? call.call_id : String(call.call_id ?? ''),
    attempt: Number.isInteger(msg.attempt) ? msg.attempt : 1,
    replayed: false,
  };
  const fail = (e, extra = {}) => ({ ok: false, error: e, meta: { ...meta, ...extra } });
  const okEnv = (result, extra = {}) => ({ ok: true, result, meta: { ...meta, ...extra } });

  // 1. decode strictly
  const dec = decodeArguments(call, lineValue);
  if (dec.error) return fail(dec.error);
  const args = dec.value;
  if (!(args instanceof Map)) return fail(err('invalid_arguments', { reason: 'not_an_object', found: foundKind(args) }));
  const name = call.name;
  const tool = typeof name === 'string' ? catalog.get(name) : undefined;
  if (!tool) return fail(err('tool_not_found', { tool: [...String(name ?? '')].slice(0, 64).join('') }));
  const violations = validate(tool.input_schema, args);
  if (violations.length) return fail(schemaError(violations));
  const canon = canonical(args);
  const argsHashRaw = sha256(Buffer.from(canon, 'utf8'));
  const argsHash = argsHashRaw.toString('hex');
  const plain = toPlain(args);

  // 2. authorize
  const identity = auth.identity || {};
  if (identity.valid !== true) return fail(err('unauthorized', { reason: 'identity_invalid' }));
  if (typeof identity.expires_at_ms === 'number' && identity.expires_at_ms <= Date.now()) return fail(err('unauthorized', { reason: 'identity_expired' }));
  if (Array.isArray(auth.allowed_tools) && !auth.allowed_tools.includes(tool.name)) return fail(err('forbidden', { reason: 'tool_not_allowed' }));
  const scopes = Array.isArray(auth.scopes) ? auth.scopes : [];
  const missingScopes = (tool.required_scopes || []).filter((s) => !scopes.includes(s));
  if (missingScopes.length) return fail(err('forbidden', { reason: 'missing_scope', required_scopes: missingScopes }));
  if (tool.requires_approval) {
    const ap = auth.approval;
    if (!ap || typeof ap !== 'object') return fail(err('approval_required', { reason: 'approval_missing', tool: tool.name }));
    const base = { tool: tool.name };
    if (typeof ap.approval_id === 'string') base.approval_id = ap.approval_id;
    const checks = [
      ['subject_id', ap.subject_id === auth.subject_id],
      ['tenant_id', ap.tenant_id === auth.tenant_id],
      ['tool', ap.tool === tool.name],
      ['arguments_hash', typeof ap.arguments_hash === 'string' && ap.arguments_hash.toLowerCase() === argsHash],
      ['risk', ap.risk === tool.risk],
    ];
    const bad = checks.find(([, good]) => !good);
    if (bad) return fail(err('approval_required', { reason: 'approval_mismatch', mismatch: bad[0], ...base }));
    if (!(typeof ap.expires_at_ms === 'number' && ap.expires_at_ms > Date.now())) return fail(err('approval_required', { reason: 'approval_expired', ...base }));
  }

  const identityHeaders = {
    'X-Request-Id': meta.request_id,
    'X-Tenant-Id': String(auth.tenant_id ?? ''),
    'X-Subject-Id': String(auth.subject_id ?? ''),
  };

  if (Date.now() >= deadline) return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }));

  // resource lookup
  const ds = tool.downstream || {};
  let resource = null;
  let lookupResp = null;
  const invokeReq = fillTemplate(ds.invoke, plain, null);
  if (tool.resource && ds.resource) {
    const lr = fillTemplate(ds.resource, plain, null);
    const resp = await httpCall({ method: lr.method, path: lr.path, headers: identityHeaders, deadline });
    if (resp.kind === 'error') {
      if (resp.timedOut) return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }));
      if (!resp.sent) return fail(err('dependency_unavailable', { reason: 'not_sent' }));
      return fail(err('dependency_unavailable', { reason: 'resource_lookup_failed' }));
    }
    const st = resp.status;
    if (st === 404) return fail(err('forbidden', { reason: 'resource_not_accessible' }));
    if (st >= 200 && st < 300) {
      if (!resp.complete) {
        if (resp.timedOut) return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }));
        return fail(err('dependency_unavailable', { reason: 'resource_lookup_failed', downstream_status: st }));
      }
      const parsed = parseJsonBody(resp.body);
      if (!parsed.ok || !parsed.value || typeof parsed.value !== 'object') return fail(err('dependency_unavailable', { reason: 'resource_lookup_failed', downstream_status: st }));
      resource = parsed.value;
      const roles = Array.isArray(auth.roles) ? auth.roles : [];
      const sameTenant = resource.tenant_id === auth.tenant_id;
      const owner = resource.owner_id === auth.subject_id || roles.includes('support_admin');
      if (!(sameTenant && owner)) return fail(err('forbidden', { reason: 'resource_not_accessible' }));
      lookupResp = resp;
    } else if (st >= 300 && st < 400) {
      return fail(err('dependency_unavailable', { reason: 'unexpected_answer', downstream_status: st }));
    } else if (st === 429) {
      return fail(err('rate_limited', { retry_after_ms: retryAfterMs(resp.headers), downstream_status: 429 }));
    } else if (st === 403 || st === 401) {
      return fail(err('forbidden', { reason: 'resource_not_accessible' }));
    } else {
      return fail(err('dependency_unavailable', { reason: 'resource_lookup_failed', downstream_status: st }));
    }
  }

  // read tools
  if (tool.risk === 'read') {
    let resp = lookupResp;
    const same = ds.resource && ds.resource === ds.invoke && resp;
    if (!same) {
      if (Date.now() >= deadline) return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }));
      resp = await httpCall({ method: invokeReq.method, path: invokeReq.path, headers: identityHeaders, deadline });
    }
    const r = interpret(tool, resp, false);
    if (tool.task === 'poll') return pollAnswer(tool, auth, plain, r, fail, okEnv);
    if (r.error) return fail(r.error);
    return okEnv(r.result);
  }

  // 3. side effects: claim the idempotency key
  const brid = msg.business_request_id;
  const key = idempotencyKey(String(auth.tenant_id ?? ''), String(auth.subject_id ?? ''), tool.name, brid, argsHashRaw);
  const kmeta = { idempotency_key: key };
  const now = Date.now();
  let rec = store.get(key);
  let reconcile = false;
  if (!rec) {
    rec = { key, fingerprint: argsHash, state: 'IN_PROGRESS', epoch: 1, attempts: 1, owner: INSTANCE,
      lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline, created_ms: now, outcome: null };
    store.put(key, rec);
  } else {
    if (rec.fingerprint !== argsHash) return fail(err('idempotency_conflict', { reason: 'arguments_changed' }), kmeta);
    if (rec.state === 'SUCCEEDED') return okEnv(rec.outcome.result, { ...kmeta, replayed: true });
    if (rec.state === 'FAILED_FINAL') return fail(rec.outcome.error, { ...kmeta, replayed: true });
    if (rec.state === 'IN_PROGRESS') {
      if (now < rec.lease_expires_ms && rec.owner === INSTANCE) {
        return fail(err('operation_in_progress', { retry_after_ms: Math.max(0, rec.lease_expires_ms - now) }), kmeta);
      }
      rec.state = 'UNKNOWN'; // the lease ran out: unknown, not absent
    }
    if (rec.state === 'FAILED_RETRYABLE') {
      if (rec.attempts >= RETRY_BUDGET) {
        const e = err('retry_budget_exhausted', { attempts: rec.attempts });
        store.put(key, { ...rec, state: 'FAILED_FINAL', outcome: { error: e } });
        return fail(e, kmeta);
      }
      rec = { ...rec, state: 'IN_PROGRESS', epoch: rec.epoch + 1, attempts: rec.attempts + 1, owner: INSTANCE,
        lease_expires_ms: deadline + LEASE_GRACE_MS, deadline_ms: deadline };
      store.put(key, rec);
    } else if (rec.state === 'UNKNOWN') {
      reconcile = true;
      const earlierDeadline = rec.deadline_ms;
      rec = { ...rec, state: 'IN_PROGRESS', epoch: rec.epoch + 1, owner: INSTANCE,
        lease_expires_ms: deadline + LEASE_GRACE_MS, earlier_deadline_ms: earlierDeadline };
      store.put(key, rec);
    }
  }
  const myEpoch = rec.epoch;
  const settle = (state, outcome, extra = {}) => {
    const cur = store.get(key);
    if (!cur || cur.epoch !== myEpoch || cur.state !== 'IN_PROGRESS') return; // fenced: another attempt took over
    store.put(key, { ...cur, state, outcome, ...extra });
  };
  const backToUnknown = () => settle('UNKNOWN', null, { deadline_ms: rec.earlier_deadline_ms ?? rec.deadline_ms });

  const idemHeaders = { ...identityHeaders, 'Idempotency-Key': key };

  try {
    if (reconcile) {
      if (ds.status) {
        const sq = fillTemplate(ds.status, plain, key);
        const resp = await httpCall({ method: sq.method, path: sq.path, headers: idemHeaders, deadline });
        const rmeta = { ...kmeta, reconciled: true };
        if (resp.kind === 'error' || !resp.complete) {
          backToUnknown();
          if (resp.timedOut) return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }), kmeta);
          return fail(err('dependency_unavailable', { reason: resp.kind === 'error' && !resp.sent ? 'not_sent' : 'reconciliation_failed' }), kmeta);
        }
        const parsed = parseJsonBody(resp.body);
        const body = parsed.ok && parsed.value && typeof parsed.value === 'object' ? parsed.value : null;
        const status = body ? body.status : undefined;
        if (resp.status === 200 && status === 'completed') {
          const chk = outputCheck(tool, body.result);
          if (!chk.ok) { settle('FAILED_FINAL', { error: chk.error }); return fail(chk.error, rmeta); }
          settle('SUCCEEDED', { result: chk.result });
          return okEnv(chk.result, rmeta);
        }
        if (resp.status === 200 && status === 'rejected') {
          const reason = body.error && typeof body.error.reason === 'string' ? body.error.reason : null;
          const details = { reason: reason && (tool.rejection_reasons || []).includes(reason) ? reason : 'downstream_rejected' };
          const props = tool.input_schema?.properties || {};
          if (body.error && typeof body.error.field === 'string' && Object.prototype.hasOwnProperty.call(props, body.error.field)) details.field = body.error.field;
          const e = err('business_rejected', details);
          settle('FAILED_FINAL', { error: e });
          return fail(e, rmeta);
        }
        if (resp.status === 200 && status === 'pending') {
          backToUnknown();
          return fail(err('operation_in_progress', { retry_after_ms: 1000, reason: 'downstream_pending' }), kmeta);
        }
        if (resp.status === 404 || (resp.status === 200 && status === 'not_found')) {
          const earlier = rec.earlier_deadline_ms ?? 0;
          const t = Date.now();
          if (t < earlier) {
            backToUnknown();
            return fail(err('operation_in_progress', { retry_after_ms: Math.max(0, earlier - t) + 100, reason: 'awaiting_earlier_deadline' }), kmeta);
          }
          // never applied: send again with the same key
        } else {
          backToUnknown();
          if (resp.status === 429) return fail(err('rate_limited', { retry_after_ms: retryAfterMs(resp.headers), downstream_status: 429 }), kmeta);
          return fail(err('dependency_unavailable', { reason: 'reconciliation_failed', downstream_status: resp.status }), kmeta);
        }
      } else if (!tool.repeatable) {
        backToUnknown();
        return fail(err('timeout_unknown', { reason: 'unreconcilable' }), kmeta);
      }
      // resend: one more execution
      const cur = store.get(key);
      if (cur.attempts >= RETRY_BUDGET) {
        const e = err('retry_budget_exhausted', { attempts: cur.attempts });
        settle('FAILED_FINAL', { error: e });
        return fail(e, kmeta);
      }
      store.put(key, { ...cur, attempts: cur.attempts + 1, deadline_ms: deadline });
    }

    // 4. business rules
    for (const rule of tool.business_rules || []) {
      if (rule.rule === 'at_most') {
        const v = plain[rule.argument];
        const limit = resource ? resource[rule.attribute] : undefined;
        if (typeof v === 'number' && typeof limit === 'number' && v > limit) {
          const e = err('business_rejected', { reason: rule.reason, field: rule.argument });
          settle('FAILED_FINAL', { error: e });
          return fail(e, kmeta);
        }
      }
    }

    // 5. deadline
    if (Date.now() >= deadline) {
      settle('FAILED_RETRYABLE', null);
      return fail(err('timeout_not_started', { reason: 'deadline_elapsed' }), kmeta);
    }

    // 6. call the downstream
    const hasBody = invokeReq.method === 'POST' || invokeReq.method === 'PUT';
    const resp = await httpCall({ method: invokeReq.method, path: invokeReq.path, headers: idemHeaders,
      body: hasBody ? plain : undefined, deadline });
    const r = interpret(tool, resp, true);

    // 7-8. record, then answer
    if (r.error) {
      settle(r.state, r.state === 'FAILED_FINAL' ? { error: r.error } : null, r.state === 'UNKNOWN' ? { deadline_ms: deadline } : {});
      return fail(r.error, kmeta);
    }
    settle('SUCCEEDED', { result: r.result });
    return okEnv(r.result, kmeta);
  } catch (e) {
    log('internal error:', e && e.stack ? e.stack : String(e));
    settle('UNKNOWN', null, { deadline_ms: deadline });
    return fail(err('internal_error', { sent: true }), kmeta);
  }
}

const FINAL = new Set(['completed', 'cancelled', 'failed']);

function pollAnswer(tool, auth, plain, r, fail, okEnv) {
  const tkey = `${auth.tenant_id}\u0000${plain.task_id}`;
  const kept = store.getTask(tkey);
  if (kept) return okEnv(kept);
  if (r.error) return fail(r.error);
  if (r.result && FINAL.has(r.result.status)) store.putTask(tkey, r.result);
  return okEnv(r.result);
}

// ---------------------------------------------------------------- message loop
let inFlight = 0;
let ended = false;
let brokenInput = null;
const queue = [];
let pending = Buffer.alloc(0);

function parseLine(buf) {
  const p = new Parser(buf, { mode: 'line' });
  const v = p.parseDocument();
  return { v, valueSpan: p.valueSpan };
}

function handleLine(buf) {
  if (process.env.FRESHNODE_TRACE) fs.appendFileSync(process.env.FRESHNODE_TRACE, buf.toString('utf8').slice(0, 2000) + '\n');
  let text;
  try { text = new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch {
    brokenInput = 'a line is not UTF-8';
    return;
  }
  void text;
  let parsed;
  try { parsed = parseLine(buf); } catch (e) {
    sendError(null, 'cannot read the message: not a JSON object');
    return;
  }
  const root = parsed.v;
  if (!(root instanceof Map) || typeof root.get('type') !== 'string') {
    sendError(null, 'cannot read the message: not a JSON object with a string type');
    return;
  }
  const type = root.get('type');
  if (type === 'hello') {
    const msg = toPlain(root);
    if (msg.protocol !== PROTOCOL) {
      sendError(null, `unsupported protocol ${JSON.stringify(msg.protocol)}; this executor speaks ${PROTOCOL}`);
      process.exitCode = 1;
      brokenInput = 'unsupported protocol';
      return;
    }
    let u;
    try { u = new URL(msg.downstream_url); } catch { u = null; }
    if (!u || !(u.protocol === 'http:' || u.protocol === 'https:') || !u.hostname || u.search || u.hash) {
      sendError(null, 'the downstream_url is not an http(s) URL with a host');
      process.exitCode = 1;
      brokenInput = 'bad downstream_url';
      return;
    }
    hello = msg;
    baseUrl = msg.downstream_url;
    catalog = new Map();
    for (const t of msg.catalog || []) if (t && typeof t.name === 'string') catalog.set(t.name, t);
    store = new FileStore(String(msg.session), String(msg.downstream_url));
    send({ type: 'capabilities', protocol: PROTOCOL, name: 'freshnode', version: '0.1.0',
      tools: [...catalog.keys()].sort(), features: ['durable_store', 'pause'] });
    return;
  }
  if (type === 'execute') {
    const rawCall = root.get('call');
    let lineValue = null;
    if (rawCall instanceof Map && rawCall.get('arguments') instanceof Map && rawCall.get('arguments').has('value')) {
      const v = rawCall.get('arguments').get('value');
      const span = parsed.valueSpan;
      lineValue = { v, size: span ? span[1] - span[0] : 0 };
      rawCall.get('arguments').set('value', null); // keep the decoded value out of toPlain
    }
    const msg = toPlain(root);
    const id = msg.id;
    if (typeof id !== 'string') { sendError(null, 'execute without a string id'); return; }
    if (!hello) { sendError(id, 'execute before hello'); return; }
    if (openIds.has(id)) { sendError(id, 'this request id is still in flight'); return; }
    if (!Number.isInteger(msg.attempt) || msg.attempt < 1) { sendError(id, 'attempt must be an integer from 1'); return; }
    if (!msg.call || typeof msg.call !== 'object') { sendError(id, 'execute without a call'); return; }
    openIds.add(id);
    inFlight++;
    execute(msg, lineValue)
      .catch((e) => {
        log('unexpected failure:', e && e.stack ? e.stack : String(e));
        return { ok: false, error: err('internal_error', { sent: false }),
          meta: { request_id: 'req_' + crypto.randomBytes(12).toString('hex'), call_id: String(msg.call?.call_id ?? ''), attempt: msg.attempt, replayed: false } };
      })
      .then((envelope) => {
        send({ type: 'result', id, envelope });
        openIds.delete(id);
        inFlight--;
        pump();
      });
    return;
  }
  sendError(typeof root.get('id') === 'string' ? root.get('id') : null, `unknown message type ${JSON.stringify(type).slice(0, 40)}`);
}

const openIds = new Set();

function pump() {
  while (queue.length && inFlight < MAX_IN_FLIGHT && !brokenInput) {
    handleLine(queue.shift());
  }
  if (queue.length && !brokenInput) process.stdin.pause();
  else if (!ended) process.stdin.resume();
  maybeExit();
}

function maybeExit() {
  if (inFlight > 0) return;
  if (brokenInput) {
    if (!process.exitCode) {
      sendError(null, `cannot read the input: ${brokenInput}`);
      process.exitCode = 1;
    }
    log(brokenInput);
    process.exit();
  }
  if (ended && queue.length === 0) process.exit(process.exitCode || 0);
}

process.stdin.on('data', (chunk) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  let start = 0;
  for (;;) {
    const nl = pending.indexOf(0x0a, start);
    if (nl < 0) break;
    const line = pending.subarray(start, nl);
    if (line.length > MAX_LINE) { brokenInput = 'a line is longer than 16 MiB'; break; }
    if (line.length > 0) queue.push(Buffer.from(line));
    start = nl + 1;
  }
  pending = pending.subarray(start);
  if (pending.length > MAX_LINE) brokenInput = 'a line is longer than 16 MiB';
  pump();
});
process.stdin.on('end', () => {
  ended = true;
  if (pending.length > 0) brokenInput = 'the input ended in the middle of a line';
  pump();
});
process.stdout.on('error', () => process.exit(1));
