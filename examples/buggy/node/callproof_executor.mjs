#!/usr/bin/env node
// A correct executor for the callproof conformance app in Node 20, written from docs/protocol.md,
// docs/errors.md and docs/conformance-app.md alone, with no package beyond Node's own modules.
//
// It is a probe of what the protocol doc fails to say: everything here comes from the docs, nothing from the
// Python example or the reference executor. Its own way of doing things: one event loop (no threads), an
// iterative strict JSON parser that keeps number literals, a small JSON Schema validator for the keywords the
// catalog uses, `http.request` with a new connection per request, and wire lines written with JSON.stringify's
// member order. Idempotency records live in memory (no `durable_store`).
//
//   callproof conform --executor "node examples/buggy/node/callproof_executor.mjs"
//
// CALLPROOF_NODE_HTTP=fetch sends downstream requests with the global fetch (undici: keep-alive connections, its
// own default headers, redirects turned off) instead of http.request; examples/buggy/variant_node_fetch.py.

import { createHash } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';

const PROTOCOL = 'callproof/1';
const MAX_ARGUMENT_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;
const MAX_ATTEMPTS = 5;
const LEASE_MARGIN_MS = 2000;
const SUPPORT_ROLE = 'support_admin';
const MAX_BODY_BYTES = 1024 * 1024;
const HTTP_MODE = process.env.CALLPROOF_NODE_HTTP || 'http';
const NAME = process.env.CALLPROOF_NODE_NAME || 'callproof-node-example';
// `strict` also encodes the sub-delimiters !'()* that encodeURIComponent leaves as they are; `component` is
// encodeURIComponent alone (examples/buggy/variant_node_encode_uri_component.py).
const URL_ENCODING = process.env.CALLPROOF_NODE_URL_ENCODING || 'strict';

// docs/errors.md: code -> [category, retryable, resolution, expose_to_user]
const CODES = {
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

class Refusal extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
  body() {
    const [category, retryable, resolution, toUser] = CODES[this.code];
    return { code: this.code, category, message: this.message, retryable, resolution, expose_to_model: true,
      expose_to_user: toUser, details: this.details };
  }
}

const log = (text) => process.stderr.write(`callproof-node: ${text}\n`);
const wallMs = () => Date.now();

// ---- JSON: a strict, iterative parser that keeps number literals ------------------------------------------

// A number as written: `text` is the literal, `int` says whether it is an integer literal that fits 64 bits.
class Num {
  constructor(text) {
    this.text = text;
    this.value = Number(text);
    this.int = /^-?(0|[1-9][0-9]*)$/.test(text) && text !== '-0' &&
      BigInt(text) >= -(2n ** 63n) && BigInt(text) <= 2n ** 64n - 1n;
  }
}

class SyntaxFault extends Error {
  constructor(at, hint) {
    super('syntax');
    this.at = at;
    this.hint = hint;
  }
}

class DepthFault extends Error {
  constructor(at) {
    super('depth');
    this.at = at;
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);

// Parses one JSON text. Returns {value, duplicate} where duplicate is the JSON pointer parts of the first
// repeated member, or throws SyntaxFault / DepthFault with a character index.
function parseJson(text, maxDepth = Infinity) {
  let i = 0;
  const n = text.length;
  let duplicate = null;
  const skip = () => { while (i < n && WS.has(text[i])) i += 1; };
  const fault = (at, hint) => new SyntaxFault(at, hint);
  const endFault = () => fault(n, 'truncated');

  function literalFault(at) {
    const rest = text.slice(at);
    if (/^(True|False|None)/.test(rest)) return fault(at, 'python_literal');
    if (rest.startsWith("'")) return fault(at, 'single_quotes');
    if (rest.startsWith('//') || rest.startsWith('/*') || rest.startsWith('#')) return fault(at, 'comment');
    if (/^-?(NaN|Infinity)/.test(rest)) return fault(at, 'non_finite_number');
    return fault(at, null);
  }

  function parseString() {
    // text[i] === '"'
    i += 1;
    let out = '';
    let start = i;
    while (true) {
      if (i >= n) throw endFault();
      const c = text[i];
      const code = c.charCodeAt(0);
      if (c === '"') {
        out += text.slice(start, i);
        i += 1;
        return out;
      }
      if (code < 0x20) throw fault(i, 'control_character');
      if (code >= 0xd800 && code <= 0xdfff) {
        // A raw lone surrogate cannot come from UTF-8 text; a well-formed pair passes.
        const next = text.charCodeAt(i + 1);
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { i += 2; continue; }
        throw fault(i, 'lone_surrogate');
      }
      if (c === '\\') {
        out += text.slice(start, i);
        const backslash = i;
        i += 1;
        if (i >= n) throw endFault();
        const e = text[i];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
          i += 1;
        } else if (e === 'u') {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            if (i + 5 > n && /^[0-9a-fA-F]*$/.test(hex)) throw endFault();
            throw fault(i, null);
          }
          const unit = parseInt(hex, 16);
          i += 5;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const low = text.slice(i, i + 6);
            if (/^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(low)) {
              out += String.fromCharCode(unit, parseInt(low.slice(2), 16));
              i += 6;
            } else {
              throw fault(backslash, 'lone_surrogate');
            }
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            throw fault(backslash, 'lone_surrogate');
          } else {
            out += String.fromCharCode(unit);
          }
        } else {
          throw fault(i, null);
        }
        start = i;
        continue;
      }
      i += 1;
    }
  }

  function parseNumber() {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    m.lastIndex = 0;
    const rest = text.slice(i, i + 400);
    const found = m.exec(rest);
    if (!found || found[0] === '-' || found[0] === '') {
      if (/^-(NaN|Infinity)/.test(rest)) throw fault(i, 'non_finite_number');
      if (i + 1 >= n) throw endFault();
      throw fault(i + 1, null);
    }
    const literal = found[0];
    const after = text[i + literal.length];
    if (after !== undefined && /[0-9.eE+-]/.test(after)) {
      // a number cut short (`1.`, `1e`, `01`): the first byte that cannot continue it
      if (i + literal.length + 1 >= n && /[.eE+-]/.test(after)) throw endFault();
      throw fault(i + literal.length + (/[.eE]/.test(after) ? 1 : 0), null);
    }
    const num = new Num(literal);
    if (!Number.isFinite(num.value)) throw fault(i, 'number_out_of_range');
    i += literal.length;
    return num;
  }

  function parseScalar() {
    const c = text[i];
    if (c === '"') return parseString();
    if (c === '-' || (c >= '0' && c <= '9')) return parseNumber();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return value; }
      if (word.startsWith(text.slice(i)) && i < n) throw endFault();
    }
    throw literalFault(i);
  }

  // Containers on an explicit stack, so that 100 000 levels cannot overflow the call stack.
  const stack = [];
  let root;
  let done = false;
  const attach = (value) => {
    if (stack.length === 0) { root = value; done = true; return; }
    const top = stack[stack.length - 1];
    if (Array.isArray(top.container)) top.container.push(value);
    else {
      if (Object.prototype.hasOwnProperty.call(top.container, top.key) && duplicate === null) {
        duplicate = [...stack.slice(1).map((f) => f.at), top.key];
      }
      top.container[top.key] = value;
      top.key = null;
    }
    top.expectComma = true;
    top.trailing = false;
  };
  const open = (container) => {
    if (stack.length + 1 > maxDepth) throw new DepthFault(i);
    const parent = stack[stack.length - 1];
    const at = parent ? (Array.isArray(parent.container) ? parent.container.length : parent.key) : null;
    stack.push({ container, key: null, at, expectComma: false, trailing: false });
    i += 1;
  };
  const close = () => {
    const top = stack.pop();
    i += 1;
    attach(top.container);
  };

  skip();
  if (i >= n) throw fault(0, 'truncated');
  while (!done) {
    skip();
    if (i >= n) throw endFault();
    const top = stack[stack.length - 1];
    const c = text[i];
    if (top && !Array.isArray(top.container) && top.key === null) {
      // an object: a member name, `}` or `,`
      if (c === '}') {
        if (top.trailing) throw fault(i, 'trailing_comma');
        if (top.expectComma || Object.keys(top.container).length === 0) { close(); continue; }
      }
      if (top.expectComma) {
        if (c === ',') { i += 1; top.expectComma = false; top.trailing = true; continue; }
        throw literalFault(i);
      }
      if (c !== '"') throw literalFault(i);
      top.key = parseString();
      skip();
      if (i >= n) throw endFault();
      if (text[i] !== ':') throw literalFault(i);
      i += 1;
      continue;
    }
    if (top && Array.isArray(top.container)) {
      if (c === ']') {
        if (top.trailing) throw fault(i, 'trailing_comma');
        if (top.expectComma || top.container.length === 0) { close(); continue; }
      }
      if (top.expectComma) {
        if (c === ',') { i += 1; top.expectComma = false; top.trailing = true; continue; }
        throw literalFault(i);
      }
    }
    // a value
    if (c === '{') { open(Object.create(null)); continue; }
    if (c === '[') { open([]); continue; }
    attach(parseScalar());
  }
  skip();
  if (i < n) throw fault(i, 'trailing_characters');
  return { value: root, duplicate };
}

// attach() of a closed container must put its parent in "expect a comma" state; patch via wrapper.
const parseJsonStrict = (text, maxDepth) => parseJson(text, maxDepth);

// ---- converting a parsed tree ----------------------------------------------------------------------------

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Num);

function plain(value) {
  if (value instanceof Num) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Num) return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

function depthOver(value, limit) {
  const stack = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop();
    if (Array.isArray(node) || isObject(node)) {
      if (depth + 1 > limit) return true;
      for (const child of Object.values(node)) stack.push([child, depth + 1]);
    }
  }
  return false;
}

// ---- canonical JSON and writing --------------------------------------------------------------------------

function quote(text, canonicalForm) {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (code < 0x20) out += '\\u' + code.toString(16).padStart(4, '0');
    else if (!canonicalForm && code >= 0xd800 && code <= 0xdfff) out += '\\u' + code.toString(16);
    else out += ch;
  }
  return out + '"';
}

function numberText(num, canonicalForm) {
  if (num.int) return num.text;
  const v = num.value;
  if (canonicalForm && Number.isInteger(v) && Math.abs(v) <= 2 ** 53) return String(v === 0 ? 0 : v);
  if (!canonicalForm) return num.text;
  return String(v).replace('e+', 'e');
}

// Sorted keys by UTF-8 bytes, no whitespace (docs/protocol.md, canonical JSON), or the members as they are.
function write(value, canonicalForm = false) {
  if (value === null || value === true || value === false) return String(value);
  if (value instanceof Num) return numberText(value, canonicalForm);
  if (typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return quote(value, canonicalForm);
  if (Array.isArray(value)) return '[' + value.map((v) => write(v, canonicalForm)).join(',') + ']';
  let keys = Object.keys(value).filter((k) => value[k] !== undefined);
  if (canonicalForm) keys = keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return '{' + keys.map((k) => quote(k, canonicalForm) + ':' + write(value[k], canonicalForm)).join(',') + '}';
}

const sha256 = (data) => createHash('sha256').update(data).digest();

// ---- decoding (docs/protocol.md, "What the executor must do", step 1) -----------------------------------

function position(text, index) {
  const at = Math.max(0, Math.min(index, text.length - 1));
  const prefix = Buffer.from(text.slice(0, at), 'utf8');
  const newlines = prefix.reduce((count, byte) => count + (byte === 10 ? 1 : 0), 0);
  const lastNewline = prefix.lastIndexOf(10);
  return { line: newlines + 1, column: prefix.length - (lastNewline + 1) + 1, offset: prefix.length };
}

const pointer = (parts) => parts.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

function decodeRaw(text) {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_ARGUMENT_BYTES) {
    throw new Refusal('invalid_arguments', 'tool arguments are too large',
      { reason: 'too_large', limit_bytes: MAX_ARGUMENT_BYTES, size_bytes: size });
  }
  if (text.startsWith('\ufeff')) {
    throw new Refusal('invalid_json', 'tool arguments are not valid JSON',
      { ...position(text, 0), hint: 'byte_order_mark' });
  }
  let parsed;
  try {
    parsed = parseJsonStrict(text, MAX_DEPTH);
  } catch (error) {
    if (error instanceof DepthFault) {
      throw new Refusal('invalid_arguments', 'tool arguments nest too deeply',
        { reason: 'too_deep', limit: MAX_DEPTH, ...position(text, error.at) });
    }
    if (error instanceof SyntaxFault) {
      const details = position(text, error.at);
      let hint = error.hint;
      if (hint === null) hint = undefined;
      if (hint) details.hint = hint;
      throw new Refusal('invalid_json', 'tool arguments are not valid JSON', details);
    }
    throw error;
  }
  if (parsed.duplicate) {
    throw new Refusal('invalid_arguments', 'tool arguments repeat a key',
      { reason: 'duplicate_key', path: pointer(parsed.duplicate) });
  }
  return parsed.value;
}

function decode(call, tools) {
  const args = call.arguments;
  let value;
  if (isObject(args) && Object.prototype.hasOwnProperty.call(args, 'raw')) {
    value = decodeRaw(args.raw);
  } else {
    value = isObject(args) ? args.value : undefined;
    if (value === undefined) value = null;
    if (depthOver(value, MAX_DEPTH)) {
      throw new Refusal('invalid_arguments', 'tool arguments nest too deeply', { reason: 'too_deep', limit: MAX_DEPTH });
    }
    const size = Buffer.byteLength(write(value), 'utf8');
    if (size > MAX_ARGUMENT_BYTES) {
      throw new Refusal('invalid_arguments', 'tool arguments are too large',
        { reason: 'too_large', limit_bytes: MAX_ARGUMENT_BYTES, size_bytes: size });
    }
  }
  if (!isObject(value)) {
    throw new Refusal('invalid_arguments', 'tool arguments must be a JSON object',
      { reason: 'not_an_object', found: jsonType(value) });
  }
  const tool = Object.prototype.hasOwnProperty.call(tools, call.name) ? tools[call.name] : undefined;
  if (!tool) throw new Refusal('tool_not_found', 'no tool has this exact name', { tool: [...call.name].slice(0, 64).join('') });
  const violations = validate(tool.entry.input_schema, value);
  if (violations.length) {
    const missing = [];
    const unexpected = [];
    for (const v of violations) {
      for (const m of v.members) {
        const list = v.keyword === 'required' ? missing : unexpected;
        if (!list.includes(m)) list.push(m);
      }
    }
    const details = { path: violations[0].path, keyword: violations[0].keyword,
      violations: violations.slice(0, 10).map(({ path, keyword, message }) => ({ path, keyword, message })),
      violations_truncated: violations.length > 10 };
    if (missing.length) details.missing = missing;
    if (unexpected.length) details.unexpected = unexpected;
    throw new Refusal('schema_violation', "the arguments do not match the tool's input schema", details);
  }
  const canonicalText = write(value, true);
  return { tool, value, canonicalText, hash: sha256(canonicalText) };
}

// ---- JSON Schema (the keywords the catalog uses) ---------------------------------------------------------

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

function typeMatches(type, value) {
  switch (type) {
    case 'object': return isObject(value);
    case 'array': return Array.isArray(value);
    case 'string': return typeof value === 'string';
    case 'boolean': return typeof value === 'boolean';
    case 'null': return value === null;
    case 'number': return value instanceof Num || typeof value === 'number';
    case 'integer': return (value instanceof Num && value.int) || (typeof value === 'number' && Number.isInteger(value));
    default: return false;
  }
}

function same(a, b) {
  if (a instanceof Num) a = a.value;
  if (b instanceof Num) b = b.value;
  return JSON.stringify(a) === JSON.stringify(b);
}

// Every violation with its JSON pointer parts, in the schema's keyword order; sorted by place, and at one
// place a wrong type first (docs/errors.md).
function validate(schema, value) {
  const found = [];
  const walk = (s, v, at) => {
    for (const keyword of Object.keys(s)) {
      const rule = s[keyword];
      const add = (members = []) => found.push({ at, keyword, members,
        path: pointer(at), message: `does not satisfy \`${keyword}\`` });
      const numeric = v instanceof Num ? v.value : (typeof v === 'number' ? v : null);
      switch (keyword) {
        case 'type': {
          const types = Array.isArray(rule) ? rule : [rule];
          if (!types.some((t) => typeMatches(t, v))) add();
          break;
        }
        case 'enum': if (!rule.some((e) => same(e, v))) add(); break;
        case 'const': if (!same(rule, v)) add(); break;
        case 'minimum': if (numeric !== null && numeric < rule) add(); break;
        case 'maximum': if (numeric !== null && numeric > rule) add(); break;
        case 'minLength': if (typeof v === 'string' && [...v].length < rule) add(); break;
        case 'maxLength': if (typeof v === 'string' && [...v].length > rule) add(); break;
        case 'pattern': if (typeof v === 'string' && !new RegExp(rule, 'u').test(v)) add(); break;
        case 'format':
          if (typeof v === 'string' && ((rule === 'email' && !EMAIL.test(v)) || (rule === 'uri' && !URI.test(v)))) add();
          break;
        case 'required':
          if (isObject(v)) {
            const missing = rule.filter((name) => !Object.prototype.hasOwnProperty.call(v, name));
            if (missing.length) add(missing.map((name) => pointer([...at, name])));
          }
          break;
        case 'additionalProperties':
          if (isObject(v) && rule === false) {
            const declared = s.properties || {};
            const extra = Object.keys(v).filter((name) => !Object.prototype.hasOwnProperty.call(declared, name));
            if (extra.length) add(extra.slice(0, 32).map((name) => pointer([...at, name])));
          }
          break;
        case 'properties':
          if (isObject(v)) {
            for (const [name, sub] of Object.entries(rule)) {
              if (Object.prototype.hasOwnProperty.call(v, name)) walk(sub, v[name], [...at, name]);
            }
          }
          break;
        default:
          break;
      }
    }
  };
  walk(schema, value, []);
  const order = (a, b) => {
    for (let k = 0; k < Math.min(a.at.length, b.at.length); k += 1) {
      if (a.at[k] !== b.at[k]) return String(a.at[k]) < String(b.at[k]) ? -1 : 1;
    }
    if (a.at.length !== b.at.length) return a.at.length - b.at.length;
    return (a.keyword === 'type' ? 0 : 1) - (b.keyword === 'type' ? 0 : 1);
  };
  return found.map((f, index) => ({ ...f, index })).sort((a, b) => order(a, b) || a.index - b.index);
}

// ---- the downstream --------------------------------------------------------------------------------------

class NotSent extends Error {}
class Lost extends Error {}
class TimedOut extends Error {}

function expand(template, args, key) {
  const space = template.indexOf(' ');
  const method = template.slice(0, space);
  const target = template.slice(space + 1).replace(/\{([a-z_]+)\}/g, (_, name) => {
    let value = name === 'idempotency_key' ? key : args[name];
    if (value === undefined || value === null) value = '';
    else if (typeof value !== 'string') value = write(value);
    const encoded = encodeURIComponent(value);
    if (URL_ENCODING === 'component') return encoded;
    return encoded.replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  });
  return { method, target };
}

class Downstream {
  constructor(baseUrl) {
    const url = new URL(baseUrl);
    this.base = url;
    this.host = url.hostname;
    this.port = Number(url.port || 80);
  }

  headers(ctx, key) {
    const headers = { 'X-Deadline-Ms': String(ctx.remainingMs()), 'X-Request-Id': ctx.requestId,
      'X-Tenant-Id': ctx.auth.tenant_id, 'X-Subject-Id': ctx.auth.subject_id };
    if (key) headers['Idempotency-Key'] = key;
    return headers;
  }

  send(template, args, ctx, key = null) {
    const { method, target } = expand(template, args, key);
    if (ctx.remainingMs() <= 0) return Promise.reject(new TimedOut());
    const headers = this.headers(ctx, key);
    let body = null;
    if (method === 'POST' || method === 'PUT') {
      body = Buffer.from(write(args), 'utf8');
      headers['Content-Type'] = 'application/json';
    }
    return HTTP_MODE === 'fetch' ? this.sendFetch(method, target, headers, body, ctx)
      : this.sendHttp(method, target, headers, body, ctx);
  }

  sendHttp(method, target, headers, body, ctx) {
    return new Promise((resolve, reject) => {
      if (body) headers['Content-Length'] = String(body.length);
      const request = http.request({ host: this.host, port: this.port, method, path: target, headers, agent: false });
      let connected = false;
      let settled = false;
      const finish = (fn, value) => { if (!settled) { settled = true; clearTimeout(timer); fn(value); } };
      const timer = setTimeout(() => {
        if (!connected) finish(reject, new TimedOut());
        else finish(reject, new TimedOut());
        request.destroy();
      }, Math.max(1, ctx.remainingMs()));
      request.on('socket', (socket) => {
        socket.on('connect', () => { connected = true; ctx.sent = true; });
      });
      request.on('error', (error) => {
        if (!connected) finish(reject, new NotSent(error.code));
        else if (ctx.remainingMs() <= 0) finish(reject, new TimedOut());
        else finish(reject, new Lost(error.code));
      });
      request.on('response', (response) => {
        const chunks = [];
        let size = 0;
        let over = false;
        response.on('data', (chunk) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) over = true;
          else chunks.push(chunk);
        });
        response.on('error', () => finish(resolve, { status: response.statusCode, headers: response.headers,
          body: null, whole: false }));
        response.on('aborted', () => finish(resolve, { status: response.statusCode, headers: response.headers,
          body: null, whole: false }));
        response.on('end', () => finish(resolve, { status: response.statusCode, headers: response.headers,
          body: over ? null : Buffer.concat(chunks), whole: !over }));
      });
      if (body) request.end(body); else request.end();
    });
  }

  async sendFetch(method, target, headers, body, ctx) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(1, ctx.remainingMs()));
    // fetch does not say when the connection was made: a refused connection is told by its error code.
    let response;
    try {
      response = await fetch(new URL(target, this.base), { method, headers, body, redirect: 'manual',
        signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      const code = error?.cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL') throw new NotSent(code);
      ctx.sent = true;
      if (controller.signal.aborted || ctx.remainingMs() <= 0) throw new TimedOut();
      throw new Lost(code);
    }
    ctx.sent = true;
    const found = { status: response.status, headers: Object.fromEntries(response.headers), body: null, whole: true };
    try {
      const reader = response.body ? response.body.getReader() : null;
      const chunks = [];
      let size = 0;
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > MAX_BODY_BYTES) { found.whole = false; controller.abort(); break; }
        chunks.push(Buffer.from(value));
      }
      if (found.whole) found.body = Buffer.concat(chunks);
    } catch {
      found.whole = false;
    }
    clearTimeout(timer);
    return found;
  }
}

// ---- the executor ----------------------------------------------------------------------------------------

class Context {
  constructor(requestId, auth, deadline) {
    this.requestId = requestId;
    this.auth = auth;
    this.deadline = deadline; // performance.now() ms
    this.sent = false;
  }
  remainingMs() { return Math.max(0, Math.floor(this.deadline - performance.now())); }
}

const succeed = (result, meta) => ({ ok: true, result, meta: { ...meta } });
const fail = (refusal, meta) => ({ ok: false, error: refusal.body(), meta: { ...meta } });
const inProgress = (ms, reason) => new Refusal('operation_in_progress',
  'another attempt of this business request is still in progress',
  reason ? { retry_after_ms: Math.max(100, Math.ceil(ms)), reason } : { retry_after_ms: Math.max(100, Math.ceil(ms)) });

function replay(stored, meta) {
  const answer = { ok: stored.ok, meta: { ...meta, replayed: true } };
  delete answer.meta.reconciled;
  if (stored.meta.reconciled) answer.meta.reconciled = true;
  if (stored.ok) answer.result = stored.result; else answer.error = stored.error;
  return answer;
}

// A body is JSON only if it is UTF-8 (RFC 8259 §8.1): a byte that is not is refused, never replaced with U+FFFD.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function readJson(buffer) {
  try {
    return parseJsonStrict(strictUtf8.decode(buffer)).value;
  } catch {
    return undefined;
  }
}

class Executor {
  constructor(hello) {
    this.tools = {};
    for (const entry of hello.catalog) {
      this.tools[entry.name] = { entry, name: entry.name, risk: entry.risk, sideEffect: entry.risk !== 'read',
        declaredIn: new Set(Object.keys(entry.input_schema.properties || {})),
        declaredOut: new Set(Object.keys(entry.output_schema.properties || {})) };
    }
    this.downstream = new Downstream(hello.downstream_url);
    this.records = new Map();
    this.taskFinals = new Map();
    this.counter = 0;
    this.prefix = createHash('sha256').update(String(Math.random()) + process.pid).digest('hex').slice(0, 10);
  }

  nextRequestId() {
    this.counter += 1;
    return `node-${this.prefix}-${this.counter}`;
  }

  async execute(message, received) {
    const call = message.call;
    const auth = plain(message.auth);
    const budget = plain(message.budget_ms);
    const ctx = new Context(this.nextRequestId(), auth, received + budget);
    const meta = { request_id: ctx.requestId, call_id: call.call_id, attempt: plain(message.attempt), replayed: false };
    try {
      return await this.pipeline(call, auth, message.business_request_id ?? null, ctx, meta);
    } catch (error) {
      if (error instanceof Refusal) return fail(error, meta);
      throw error;
    }
  }

  async pipeline(call, auth, businessRequestId, ctx, meta) {
    const { tool, value, canonicalText, hash } = decode(call, this.tools);
    const resource = await this.authorize(tool, value, hash, auth, ctx);
    let finalKey = null;
    if (tool.entry.task === 'poll') {
      finalKey = JSON.stringify([auth.tenant_id, value.task_id]);
      const kept = this.taskFinals.get(finalKey);
      if (kept !== undefined) return succeed(kept, meta);
    }
    let held = null;
    if (tool.sideEffect) {
      const key = this.deriveKey(auth, tool.name, hash, businessRequestId);
      meta.idempotency_key = key;
      const claimed = await this.claim(key, hash.toString('hex'), tool, value, ctx, meta);
      if (!Array.isArray(claimed)) return claimed;
      held = claimed;
    }
    let state;
    let result;
    try {
      this.checkRules(tool, value, resource);
      [state, result] = await this.callTool(tool, value, ctx, held);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      [state, result] = ['FAILED_FINAL', error];
    }
    if (!(result instanceof Refusal)) {
      const violations = validate(tool.entry.output_schema, result);
      if (violations.length) {
        state = 'FAILED_FINAL';
        result = new Refusal('output_invalid', "the tool's output breaks its contract",
          { path: violations[0].path, keyword: violations[0].keyword });
      }
    }
    if (finalKey !== null && !(result instanceof Refusal) && ['completed', 'cancelled', 'failed'].includes(result.status)) {
      if (!this.taskFinals.has(finalKey)) this.taskFinals.set(finalKey, result);
      result = this.taskFinals.get(finalKey);
    }
    const envelope = result instanceof Refusal ? fail(result, meta) : succeed(result, meta);
    if (held) this.settle(held, state, envelope);
    return envelope;
  }

  // docs/protocol.md, record format 2: tenant FF subject FF tool FF, then b + business request id or a + hash.
  deriveKey(auth, toolName, hash, businessRequestId) {
    const ff = Buffer.from([0xff]);
    const parts = [];
    for (const name of [auth.tenant_id, auth.subject_id, toolName]) parts.push(Buffer.from(name, 'utf8'), ff);
    if (businessRequestId !== null) parts.push(Buffer.from('b' + businessRequestId, 'utf8'));
    else parts.push(Buffer.from('a'), hash);
    return sha256(Buffer.concat(parts)).toString('hex');
  }

  async authorize(tool, value, hash, auth, ctx) {
    const identity = auth.identity || {};
    if (!identity.valid) throw new Refusal('unauthorized', "the caller's identity is not valid", { reason: 'identity_invalid' });
    if (identity.expires_at_ms != null && identity.expires_at_ms <= wallMs()) {
      throw new Refusal('unauthorized', "the caller's identity has expired", { reason: 'identity_expired' });
    }
    if (auth.allowed_tools != null && !auth.allowed_tools.includes(tool.name)) {
      throw new Refusal('forbidden', 'the caller may not use this tool', { reason: 'tool_not_allowed' });
    }
    const missing = (tool.entry.required_scopes || []).filter((s) => !(auth.scopes || []).includes(s));
    if (missing.length) {
      throw new Refusal('forbidden', 'the caller lacks a required scope', { reason: 'missing_scope', required_scopes: missing });
    }
    if (tool.entry.requires_approval) this.checkApproval(tool, hash, auth);
    const binding = tool.entry.resource;
    if (!binding || typeof value[binding.argument] !== 'string') return null;
    if (ctx.remainingMs() <= 0) {
      throw new Refusal('timeout_not_started', 'the deadline passed before access could be checked', { reason: 'deadline_elapsed' });
    }
    let answer;
    try {
      answer = await this.downstream.send(tool.entry.downstream.resource, value, ctx);
    } catch (error) {
      if (error instanceof TimedOut) {
        throw new Refusal('timeout_not_started', 'the deadline passed while checking access', { reason: 'deadline_elapsed' });
      }
      throw new Refusal('dependency_unavailable', 'the system of record could not be reached', { reason: 'resource_lookup_failed' });
    } finally {
      ctx.sent = false;
    }
    let resource = null;
    if (answer.status >= 200 && answer.status < 300 && answer.whole) {
      resource = plain(readJson(answer.body));
      if (!isObject(resource) || typeof resource.tenant_id !== 'string' || typeof resource.owner_id !== 'string') {
        throw new Refusal('dependency_unavailable', 'the system of record could not be reached', { reason: 'resource_lookup_failed' });
      }
    } else if (answer.status !== 404) {
      throw new Refusal('dependency_unavailable', 'the system of record could not be reached', { reason: 'resource_lookup_failed' });
    }
    const mayAct = resource !== null && resource.tenant_id === auth.tenant_id &&
      (resource.owner_id === auth.subject_id || (auth.roles || []).includes(SUPPORT_ROLE));
    if (!mayAct) throw new Refusal('forbidden', 'the resource is not accessible', { reason: 'resource_not_accessible' });
    return resource;
  }

  checkApproval(tool, hash, auth) {
    const approval = auth.approval;
    if (approval == null) {
      throw new Refusal('approval_required', "this operation needs the user's approval", { reason: 'approval_missing', tool: tool.name });
    }
    const checks = [['subject_id', approval.subject_id === auth.subject_id], ['tenant_id', approval.tenant_id === auth.tenant_id],
      ['tool', approval.tool === tool.name], ['arguments_hash', approval.arguments_hash === hash.toString('hex')],
      ['risk', approval.risk === tool.risk]];
    for (const [field, ok] of checks) {
      if (!ok) {
        throw new Refusal('approval_required', 'the approval does not cover this exact operation',
          { reason: 'approval_mismatch', mismatch: field, tool: tool.name, approval_id: approval.approval_id });
      }
    }
    if (approval.expires_at_ms <= wallMs()) {
      throw new Refusal('approval_required', 'the approval has expired',
        { reason: 'approval_expired', tool: tool.name, approval_id: approval.approval_id });
    }
  }

  checkRules(tool, value, resource) {
    for (const rule of tool.entry.business_rules || []) {
      if (rule.rule !== 'at_most') continue;
      const wanted = value[rule.argument];
      const limit = (resource || {})[rule.attribute];
      if (wanted instanceof Num && typeof limit === 'number' && wanted.value > limit) {
        throw new Refusal('business_rejected', 'a business rule refused the request', { reason: rule.reason, field: rule.argument });
      }
    }
  }

  // -- idempotency: one event loop, so a synchronous section is atomic --

  settle([key, epoch], state, outcome) {
    const record = this.records.get(key);
    if (record && record.state === 'IN_PROGRESS' && record.epoch === epoch) {
      record.state = state;
      record.outcome = outcome;
    }
  }

  async claim(key, fingerprint, tool, value, ctx, meta) {
    const deadlineWall = wallMs() + ctx.remainingMs();
    const lease = deadlineWall + LEASE_MARGIN_MS;
    for (let round = 0; round < 4; round += 1) {
      const record = this.records.get(key);
      if (!record) {
        this.records.set(key, { fingerprint, state: 'IN_PROGRESS', epoch: 1, attempts: 1, lease, deadline: deadlineWall, outcome: null });
        return [key, 1];
      }
      if (record.fingerprint !== fingerprint) {
        return fail(new Refusal('idempotency_conflict', 'this business request was already made with different arguments',
          { reason: 'arguments_changed' }), meta);
      }
      const now = wallMs();
      if (record.state === 'IN_PROGRESS' && record.lease > now) return fail(inProgress(record.lease - now), meta);
      if (record.state === 'IN_PROGRESS') { record.state = 'UNKNOWN'; continue; }
      if (record.state === 'SUCCEEDED' || record.state === 'FAILED_FINAL') return replay(record.outcome, meta);
      if (record.state === 'FAILED_RETRYABLE') {
        if (record.attempts >= MAX_ATTEMPTS) {
          const envelope = fail(new Refusal('retry_budget_exhausted', 'this business request failed too often; retries stop here',
            { attempts: record.attempts }), meta);
          record.state = 'FAILED_FINAL';
          record.outcome = envelope;
          return envelope;
        }
        Object.assign(record, { state: 'IN_PROGRESS', epoch: record.epoch + 1, attempts: record.attempts + 1, lease,
          deadline: deadlineWall, outcome: null });
        return [key, record.epoch];
      }
      if (record.state === 'RECONCILING') return fail(inProgress(100), meta);
      // UNKNOWN: ask the downstream before anything is sent again
      const answer = await this.reconcile(key, record, tool, value, ctx, meta);
      if (answer !== null) return answer;
    }
    return fail(inProgress(100), meta);
  }

  async reconcile(key, record, tool, value, ctx, meta) {
    const template = tool.entry.downstream.status;
    if (!template) {
      if (tool.entry.repeatable) { record.state = 'FAILED_RETRYABLE'; return null; }
      return fail(new Refusal('timeout_unknown', "an earlier attempt's outcome is unknown and this tool cannot be reconciled automatically",
        { reason: 'unreconcilable' }), meta);
    }
    const failed = () => fail(new Refusal('dependency_unavailable', 'the outcome of an earlier attempt could not be checked; retry later',
      { reason: 'reconciliation_failed' }), meta);
    record.state = 'RECONCILING'; // one reconciliation at a time; others are told to wait
    let answer;
    try {
      answer = await this.downstream.send(template, value, ctx, key);
    } catch {
      record.state = 'UNKNOWN';
      return failed();
    }
    record.state = 'UNKNOWN';
    ctx.sent = false;
    let found;
    if (answer.status === 404) found = { status: 'not_found' };
    else if (answer.status === 200 && answer.whole) found = readJson(answer.body);
    else return failed();
    const kind = isObject(found) ? found.status : undefined;
    if (kind === 'completed') {
      meta.reconciled = true;
      const result = this.project(tool, found.result);
      const violations = validate(tool.entry.output_schema, result);
      const envelope = violations.length
        ? fail(new Refusal('output_invalid', "the tool's output breaks its contract", { path: violations[0].path, keyword: violations[0].keyword }), meta)
        : succeed(result, meta);
      Object.assign(record, { state: violations.length ? 'FAILED_FINAL' : 'SUCCEEDED', outcome: envelope });
      return envelope;
    }
    if (kind === 'rejected') {
      meta.reconciled = true;
      const envelope = fail(this.rejection(tool, found, 'downstream_rejected'), meta);
      Object.assign(record, { state: 'FAILED_FINAL', outcome: envelope });
      return envelope;
    }
    if (kind === 'pending') return fail(inProgress(100, 'downstream_pending'), meta);
    if (kind === 'not_found') {
      const now = wallMs();
      if (record.deadline > now) return fail(inProgress(record.deadline - now, 'awaiting_earlier_deadline'), meta);
      record.state = 'FAILED_RETRYABLE';
      return null;
    }
    return failed();
  }

  project(tool, value) {
    if (isObject(value) && tool.declaredOut.size) {
      return Object.fromEntries(Object.entries(value).filter(([name]) => tool.declaredOut.has(name)));
    }
    return value;
  }

  rejection(tool, parsed, defaultReason) {
    const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
    let reason = error.reason;
    if (!(tool.entry.rejection_reasons || []).includes(reason)) reason = defaultReason;
    const details = { reason };
    if (typeof error.field === 'string' && tool.declaredIn.has(error.field)) details.field = error.field;
    return new Refusal('business_rejected', 'a business rule refused the request', details);
  }

  async callTool(tool, value, ctx, held) {
    if (ctx.remainingMs() <= 0) {
      return ['FAILED_RETRYABLE', new Refusal('timeout_not_started', 'the deadline passed before the request was sent', { reason: 'deadline_elapsed' })];
    }
    let answer;
    try {
      answer = await this.downstream.send(tool.entry.downstream.invoke, value, ctx, held ? held[0] : null);
    } catch (error) {
      if (error instanceof NotSent) {
        return ['FAILED_RETRYABLE', new Refusal('dependency_unavailable', 'the downstream service could not be reached; nothing was sent', { reason: 'not_sent' })];
      }
      if (!ctx.sent) {
        return ['FAILED_RETRYABLE', new Refusal('timeout_not_started', 'the deadline passed before the request was sent', { reason: 'deadline_elapsed' })];
      }
      if (!tool.sideEffect) {
        return ['FAILED_RETRYABLE', new Refusal('dependency_unavailable', 'the downstream did not answer in time; reading again is safe', { reason: 'no_answer' })];
      }
      return ['UNKNOWN', new Refusal('timeout_unknown', 'the request was sent and its outcome is unknown',
        { reason: error instanceof TimedOut ? 'deadline_elapsed' : 'connection_lost' })];
    }
    const { status } = answer;
    if (status >= 200 && status < 300) {
      if (!answer.whole) {
        if (!tool.sideEffect) {
          return ['FAILED_RETRYABLE', new Refusal('dependency_unavailable', 'the downstream did not answer whole; reading again is safe', { reason: 'no_answer' })];
        }
        return ['UNKNOWN', new Refusal('timeout_unknown', 'the answer never arrived whole; the outcome is unknown', { reason: 'connection_lost' })];
      }
      const parsed = readJson(answer.body);
      if (parsed === undefined) {
        return ['FAILED_FINAL', new Refusal('output_invalid', "the tool's answer could not be read", { reason: 'unreadable', downstream_status: status })];
      }
      return ['SUCCEEDED', this.project(tool, parsed)];
    }
    if (status === 429) {
      const header = String(answer.headers['retry-after'] ?? '').trim();
      const seconds = /^[0-9]+$/.test(header) ? Math.min(Number(header), 3600) : null;
      return ['FAILED_RETRYABLE', new Refusal('rate_limited', 'the downstream service is rate limiting; retry later',
        { retry_after_ms: seconds === null ? 1000 : seconds * 1000 })];
    }
    if (status >= 500 && status < 600) {
      return ['FAILED_RETRYABLE', new Refusal('dependency_unavailable', 'the downstream service is unavailable and did not apply the request',
        { reason: 'unavailable', downstream_status: status })];
    }
    if (status >= 300 && status < 400) {
      if (!tool.sideEffect) {
        return ['FAILED_RETRYABLE', new Refusal('dependency_unavailable', 'the downstream answered outside its contract; reading again is safe',
          { reason: 'unexpected_answer', downstream_status: status })];
      }
      return ['UNKNOWN', new Refusal('timeout_unknown', 'the downstream answered outside its contract; the outcome is unknown',
        { reason: 'unexpected_answer', downstream_status: status })];
    }
    const defaults = { 404: 'not_found', 409: 'downstream_rejected', 422: 'downstream_rejected' };
    const parsed = answer.whole ? readJson(answer.body) : undefined;
    const refusal = defaults[status]
      ? this.rejection(tool, parsed, defaults[status])
      : new Refusal('business_rejected', 'a business rule refused the request', { reason: 'downstream_refused' });
    refusal.details.downstream_status = status;
    return ['FAILED_FINAL', refusal];
  }
}

// ---- the protocol loop -----------------------------------------------------------------------------------

function send(message) {
  process.stdout.write(write(message) + '\n');
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  let executor = null;
  const inFlight = new Set();
  for await (const line of lines) {
    const received = performance.now();
    if (executor === null) {
      let hello;
      try {
        hello = plain(parseJsonStrict(line).value);
      } catch {
        hello = null;
      }
      if (!isObject(hello) || hello.type !== 'hello' || hello.protocol !== PROTOCOL) {
        send({ type: 'error', message: `this executor speaks ${PROTOCOL} only` });
        process.exitCode = 1;
        return;
      }
      executor = new Executor(hello);
      send({ type: 'capabilities', protocol: PROTOCOL, name: NAME, version: '0.1.0',
        tools: Object.keys(executor.tools), features: ['pause'] });
      log(`serving session ${hello.session} against ${hello.downstream_url}`);
      continue;
    }
    let message;
    try {
      message = parseJsonStrict(line).value;
      if (!isObject(message) || message.type !== 'execute') throw new Error('not an execute message');
    } catch (error) {
      send({ type: 'error', message: `cannot read the message: ${error.message}` });
      continue;
    }
    const job = executor.execute(message, received).catch((error) => {
      log(`internal error: ${error && error.stack}`);
      return fail(new Refusal('internal_error', 'the executor failed unexpectedly', { sent: false }),
        { request_id: executor.nextRequestId(), call_id: message.call.call_id, attempt: plain(message.attempt), replayed: false });
    }).then((envelope) => send({ type: 'result', id: message.id, envelope }));
    inFlight.add(job);
    job.finally(() => inFlight.delete(job));
  }
  await Promise.all([...inFlight]);
}

main().catch((error) => {
  log(`fatal: ${error && error.stack}`);
  process.exitCode = 1;
});
