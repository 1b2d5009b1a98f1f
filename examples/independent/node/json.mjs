// Strict RFC 8259 decoder over UTF-8 bytes, keeping number spelling, duplicate keys and positions.

export class JNum {
  constructor(text) {
    this.text = text;
    this.isInt = isIntegerLiteral(text);
  }
  get value() { return Number(this.text); }
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function isIntegerLiteral(text) {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text)) return false;
  if (text === '-0') return false;
  const b = BigInt(text);
  return b >= I64_MIN && b <= I64_MAX;
}

export const TOO_DEEP = Object.freeze({ tooDeep: true });

export class DecodeError extends Error {
  constructor(code, details) {
    super(code);
    this.code = code;
    this.details = details;
  }
}

export function pointerEscape(k) {
  return String(k).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function position(buf, offset) {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < buf.length; i++) {
    if (buf[i] === 0x0a) { line++; last = i; }
  }
  return { line, column: offset - last, offset };
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * mode 'strict': depth limit enforced with invalid_arguments/too_deep, duplicates refused.
 * mode 'line': no limits; values nested deeper than lineCap are skipped and replaced by TOO_DEEP;
 *              duplicate keys are recorded on the Map (dupAt) and the last value is kept.
 */
export class Parser {
  constructor(buf, { mode = 'strict', maxDepth = 64, lineCap = 900 } = {}) {
    this.b = buf;
    this.pos = 0;
    this.mode = mode;
    this.maxDepth = maxDepth;
    this.lineCap = lineCap;
    this.valueSpan = null;
  }

  fail(offset, hint) {
    const d = position(this.b, offset);
    if (hint) d.hint = hint;
    throw new DecodeError('invalid_json', d);
  }

  truncated() {
    this.fail(this.b.length === 0 ? 0 : this.b.length - 1, 'truncated');
  }

  ws() {
    const b = this.b;
    while (this.pos < b.length && WS.has(b[this.pos])) this.pos++;
  }

  parseDocument() {
    const b = this.b;
    if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.fail(0, 'byte_order_mark');
    this.ws();
    if (this.pos >= b.length) this.truncated();
    const v = this.value(0, '');
    this.ws();
    if (this.pos < b.length) {
      const c = b[this.pos];
      this.fail(this.pos, c === 0x2f ? 'comment' : 'trailing_characters');
    }
    return v;
  }

  startsWith(s) {
    const b = this.b;
    for (let i = 0; i < s.length; i++) {
      if (this.pos + i >= b.length || b[this.pos + i] !== s.charCodeAt(i)) return false;
    }
    return true;
  }

  badValueStart() {
    const c = this.b[this.pos];
    if (this.startsWith('True') || this.startsWith('False') || this.startsWith('None')) this.fail(this.pos, 'python_literal');
    if (this.startsWith('NaN') || this.startsWith('Infinity')) this.fail(this.pos, 'non_finite_number');
    if (c === 0x27) this.fail(this.pos, 'single_quotes');
    if (c === 0x2f) this.fail(this.pos, 'comment');
    this.fail(this.pos);
  }

  // depth: depth of the enclosing container (0 at top)
  value(depth, path) {
    const b = this.b;
    if (this.pos >= b.length) this.truncated();
    const c = b[this.pos];
    if (c === 0x7b || c === 0x5b) {
      const level = depth + 1;
      if (this.mode === 'strict' && level > this.maxDepth) {
        const d = { reason: 'too_deep', limit: this.maxDepth, path, ...position(b, this.pos) };
        throw new DecodeError('invalid_arguments', d);
      }
      if (this.mode === 'line' && level > this.lineCap) {
        this.skipContainer();
        return TOO_DEEP;
      }
      return c === 0x7b ? this.object(level, path) : this.array(level, path);
    }
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    if (c === 0x6e) return this.literal('null', null);
    this.badValueStart();
  }

  literal(word, v) {
    const b = this.b;
    for (let i = 0; i < word.length; i++) {
      if (this.pos >= b.length) this.truncated();
      if (b[this.pos] !== word.charCodeAt(i)) this.fail(this.pos);
      this.pos++;
    }
    return v;
  }

  number() {
    const b = this.b;
    const start = this.pos;
    const digit = () => this.pos < b.length && b[this.pos] >= 0x30 && b[this.pos] <= 0x39;
    if (b[this.pos] === 0x2d) {
      this.pos++;
      if (this.pos >= b.length) this.truncated();
      if (!digit()) {
        if (this.startsWith('Infinity')) this.fail(this.pos, 'non_finite_number');
        this.fail(this.pos);
      }
    }
    if (b[this.pos] === 0x30) {
      this.pos++;
    } else {
      while (digit()) this.pos++;
    }
    if (this.pos < b.length && b[this.pos] === 0x2e) {
      this.pos++;
      if (this.pos >= b.length) this.truncated();
      if (!digit()) this.fail(this.pos);
      while (digit()) this.pos++;
    }
    if (this.pos < b.length && (b[this.pos] === 0x65 || b[this.pos] === 0x45)) {
      this.pos++;
      if (this.pos < b.length && (b[this.pos] === 0x2b || b[this.pos] === 0x2d)) this.pos++;
      if (this.pos >= b.length) this.truncated();
      if (!digit()) this.fail(this.pos);
      while (digit()) this.pos++;
    }
    const text = b.toString('latin1', start, this.pos);
    const n = Number(text);
    if (!Number.isFinite(n)) this.fail(start, 'number_out_of_range');
    return new JNum(text);
  }

  hex4(at) {
    const b = this.b;
    let v = 0;
    for (let i = 0; i < 4; i++) {
      const p = at + i;
      if (p >= b.length) this.truncated();
      const c = b[p];
      let d;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else return -1;
      v = v * 16 + d;
    }
    return v;
  }

  string() {
    const b = this.b;
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= b.length) this.truncated();
      const c = b[this.pos];
      if (c === 0x22) {
        out += b.toString('utf8', runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail(this.pos, 'control_character');
      if (c === 0x5c) {
        out += b.toString('utf8', runStart, this.pos);
        const escPos = this.pos + 1;
        if (escPos >= b.length) this.truncated();
        const e = b[escPos];
        const simple = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
          this.pos = escPos + 1;
        } else if (e === 0x75) {
          const cu = this.hex4(escPos + 1);
          if (cu < 0) this.fail(escPos);
          let next = escPos + 5;
          if (cu >= 0xd800 && cu <= 0xdbff) {
            // need a low surrogate escape
            if (next + 1 < b.length && b[next] === 0x5c && b[next + 1] === 0x75) {
              const lo = this.hex4(next + 2);
              if (lo >= 0xdc00 && lo <= 0xdfff) {
                out += String.fromCharCode(cu, lo);
                this.pos = next + 6;
              } else if (this.mode === 'line') {
                out += String.fromCharCode(cu);
                this.pos = next;
              } else {
                this.fail(escPos, 'lone_surrogate');
              }
            } else if (next >= b.length || (next + 1 >= b.length && b[next] === 0x5c)) {
              this.truncated();
            } else if (this.mode === 'line') {
              out += String.fromCharCode(cu);
              this.pos = next;
            } else {
              this.fail(escPos, 'lone_surrogate');
            }
          } else if (cu >= 0xdc00 && cu <= 0xdfff) {
            if (this.mode === 'line') {
              out += String.fromCharCode(cu);
              this.pos = next;
            } else {
              this.fail(escPos, 'lone_surrogate');
            }
          } else {
            out += String.fromCharCode(cu);
            this.pos = next;
          }
        } else {
          this.fail(escPos);
        }
        runStart = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  array(level, path) {
    const b = this.b;
    this.pos++;
    const out = [];
    this.ws();
    if (this.pos >= b.length) this.truncated();
    if (b[this.pos] === 0x5d) { this.pos++; return out; }
    for (;;) {
      this.ws();
      if (this.pos >= b.length) this.truncated();
      if (out.length > 0 && (b[this.pos] === 0x5d)) this.fail(this.pos, 'trailing_comma');
      out.push(this.value(level, path + '/' + out.length));
      this.ws();
      if (this.pos >= b.length) this.truncated();
      const c = b[this.pos];
      if (c === 0x2c) { this.pos++; continue; }
      if (c === 0x5d) { this.pos++; return out; }
      this.fail(this.pos, c === 0x2f ? 'comment' : undefined);
    }
  }

  object(level, path) {
    const b = this.b;
    this.pos++;
    const out = new Map();
    this.ws();
    if (this.pos >= b.length) this.truncated();
    if (b[this.pos] === 0x7d) { this.pos++; return out; }
    let first = true;
    for (;;) {
      this.ws();
      if (this.pos >= b.length) this.truncated();
      const c = b[this.pos];
      if (c !== 0x22) {
        if (!first && c === 0x7d) this.fail(this.pos, 'trailing_comma');
        if (c === 0x27) this.fail(this.pos, 'single_quotes');
        if (c === 0x2f) this.fail(this.pos, 'comment');
        this.fail(this.pos);
      }
      first = false;
      const keyPos = this.pos;
      const key = this.string();
      const memberPath = path + '/' + pointerEscape(key);
      if (out.has(key)) {
        if (this.mode === 'strict') {
          throw new DecodeError('invalid_arguments', { reason: 'duplicate_key', path: memberPath, ...position(b, keyPos) });
        }
        if (out.dupAt === undefined) { out.dupAt = out.size; out.dupPath = memberPath; }
        out.delete(key);
      }
      this.ws();
      if (this.pos >= b.length) this.truncated();
      if (b[this.pos] !== 0x3a) this.fail(this.pos, b[this.pos] === 0x2f ? 'comment' : undefined);
      this.pos++;
      this.ws();
      const vstart = this.pos;
      const v = this.value(level, memberPath);
      if (this.mode === 'line' && key === 'value') this.valueSpan = [vstart, this.pos];
      out.set(key, v);
      this.ws();
      if (this.pos >= b.length) this.truncated();
      const d = b[this.pos];
      if (d === 0x2c) { this.pos++; continue; }
      if (d === 0x7d) { this.pos++; return out; }
      this.fail(this.pos, d === 0x2f ? 'comment' : undefined);
    }
  }

  // line mode only: skip a deep container without recursion
  skipContainer() {
    const b = this.b;
    let depth = 0;
    while (this.pos < b.length) {
      const c = b[this.pos];
      if (c === 0x22) { this.string(); continue; }
      if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) { this.pos++; return; }
      }
      this.pos++;
    }
    this.truncated();
  }
}

export function decodeStrict(buf, maxDepth = 64) {
  return new Parser(buf, { mode: 'strict', maxDepth }).parseDocument();
}

// Plain JS value (for protocol members and request bodies).
export function toPlain(v) {
  if (v instanceof JNum) return Number(v.text);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Map) {
    const o = {};
    for (const [k, x] of v) Object.defineProperty(o, k, { value: toPlain(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

// Structural check of an already parsed ("value") argument: duplicate keys and depth, in document order.
export function structuralCheck(v, maxDepth = 64) {
  const walk = (x, depth, path) => {
    if (x === TOO_DEEP) return { reason: 'too_deep', limit: maxDepth, path };
    if (x instanceof Map || Array.isArray(x)) {
      const level = depth + 1;
      if (level > maxDepth) return { reason: 'too_deep', limit: maxDepth, path };
      if (Array.isArray(x)) {
        for (let i = 0; i < x.length; i++) {
          const r = walk(x[i], level, path + '/' + i);
          if (r) return r;
        }
      } else {
        let i = 0;
        for (const [k, y] of x) {
          if (x.dupAt !== undefined && i === x.dupAt) return { reason: 'duplicate_key', path: x.dupPath };
          const r = walk(y, level, path + '/' + pointerEscape(k));
          if (r) return r;
          i++;
        }
        if (x.dupAt !== undefined) return { reason: 'duplicate_key', path: x.dupPath };
      }
    }
    return null;
  };
  return walk(v, 0, '');
}

// Canonical JSON (docs/protocol.md).
export function canonNumber(text) {
  if (/^-?[0-9]+$/.test(text)) return BigInt(text).toString();
  const n = Number(text);
  if (Number.isInteger(n) && Math.abs(n) <= 2 ** 53) return BigInt(n).toString();
  return String(n);
}

export function canonString(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20) out += '\\u00' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

export function canonical(v) {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof JNum) return canonNumber(v.text);
  if (typeof v === 'number') return canonNumber(String(v));
  if (typeof v === 'string') return canonString(v);
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  entries.sort((a, b) => Buffer.compare(Buffer.from(a[0], 'utf8'), Buffer.from(b[0], 'utf8')));
  return '{' + entries.map(([k, x]) => canonString(k) + ':' + canonical(x)).join(',') + '}';
}
