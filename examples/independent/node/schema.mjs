// A JSON Schema 2020-12 validator for the keyword subset the conformance app's catalog uses.
// Works on decoded values (Map / JNum from json.mjs) and on plain JS values (downstream bodies).
import { JNum, pointerEscape } from './json.mjs';

export function typeOf(v) {
  if (v === null) return 'null';
  if (v instanceof JNum) return v.isInt ? 'integer' : 'number';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

function matchesType(v, t) {
  const k = typeOf(v);
  return k === t || (t === 'number' && k === 'integer');
}

function num(v) { return v instanceof JNum ? Number(v.text) : v; }

function entries(v) { return v instanceof Map ? [...v] : Object.entries(v); }
function has(v, k) { return v instanceof Map ? v.has(k) : Object.prototype.hasOwnProperty.call(v, k); }
function get(v, k) { return v instanceof Map ? v.get(k) : v[k]; }

function deepEq(a, b) {
  const ta = typeOf(a), tb = typeOf(b);
  const numeric = (t) => t === 'integer' || t === 'number';
  if (numeric(ta) && numeric(tb)) return num(a) === num(b);
  if (ta !== tb) return false;
  if (ta === 'array') return a.length === b.length && a.every((x, i) => deepEq(x, b[i]));
  if (ta === 'object') {
    const ea = entries(a), eb = entries(b);
    return ea.length === eb.length && ea.every(([k, x]) => has(b, k) && deepEq(x, get(b, k)));
  }
  return a === b;
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL_RE = new RegExp(`^(?:${ATOM}(?:\\.${ATOM})*|"(?:[^"\\\\\\r\\n]|\\\\.)*")@(?:${LABEL}(?:\\.${LABEL})*|\\[[^\\]\\s]+\\])$`);
const URI_RE = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

function checkFormat(fmt, s) {
  if (fmt === 'email') {
    const at = s.lastIndexOf('@');
    if (at < 1 || at > 64 || s.length > 254) return false;
    return EMAIL_RE.test(s);
  }
  if (fmt === 'uri') return URI_RE.test(s);
  return true;
}

const regexCache = new Map();
function regex(p) {
  let r = regexCache.get(p);
  if (!r) { r = new RegExp(p, 'u'); regexCache.set(p, r); }
  return r;
}

// A fixed keyword order: `type` first (docs/errors.md), then the value's own keywords, then members.
const KEYWORD_ORDER = ['type', 'const', 'enum', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum',
  'additionalProperties', 'properties', 'required', 'items'];

// Returns a list of violations {path, keyword, message, missing?, unexpected?} in schema keyword order.
export function validate(schema, v, path = '', out = []) {
  if (schema === true || schema === undefined) return out;
  if (schema === false) { out.push({ path, keyword: 'false', message: `${path || 'the value'}: not allowed` }); return out; }
  const present = Object.keys(schema);
  const keys = [...KEYWORD_ORDER.filter((k) => present.includes(k)), ...present.filter((k) => !KEYWORD_ORDER.includes(k))];
  for (const kw of keys) {
    const s = schema[kw];
    const t = typeOf(v);
    switch (kw) {
      case 'type': {
        const types = Array.isArray(s) ? s : [s];
        if (!types.some((x) => matchesType(v, x))) {
          out.push({ path, keyword: 'type', message: `${path || 'the arguments'}: expected ${types.join(' or ')}` });
          return out; // nothing else is judged at this place
        }
        break;
      }
      case 'enum':
        if (!s.some((x) => deepEq(x, v))) out.push({ path, keyword: 'enum', message: `${path}: the value is not one of the allowed values` });
        break;
      case 'const':
        if (!deepEq(s, v)) out.push({ path, keyword: 'const', message: `${path}: the value is not the required constant` });
        break;
      case 'pattern':
        if (t === 'string' && !regex(s).test(v)) out.push({ path, keyword: 'pattern', message: `${path}: the value does not match the required pattern` });
        break;
      case 'minLength':
        if (t === 'string' && [...v].length < s) out.push({ path, keyword: 'minLength', message: `${path}: the value is shorter than ${s} characters` });
        break;
      case 'maxLength':
        if (t === 'string' && [...v].length > s) out.push({ path, keyword: 'maxLength', message: `${path}: the value is longer than ${s} characters` });
        break;
      case 'minimum':
        if ((t === 'integer' || t === 'number') && num(v) < s) out.push({ path, keyword: 'minimum', message: `${path}: the value is below the minimum ${s}` });
        break;
      case 'maximum':
        if ((t === 'integer' || t === 'number') && num(v) > s) out.push({ path, keyword: 'maximum', message: `${path}: the value is above the maximum ${s}` });
        break;
      case 'format':
        if (t === 'string' && !checkFormat(s, v)) out.push({ path, keyword: 'format', message: `${path}: the value is not a valid ${s}` });
        break;
      case 'properties':
        if (t === 'object') {
          for (const [k, sub] of Object.entries(s)) {
            if (has(v, k)) validate(sub, get(v, k), path + '/' + pointerEscape(k), out);
          }
        }
        break;
      case 'additionalProperties':
        if (t === 'object' && s !== true) {
          const props = schema.properties || {};
          for (const [k, x] of entries(v)) {
            if (Object.prototype.hasOwnProperty.call(props, k)) continue;
            const p = path + '/' + pointerEscape(k);
            if (s === false) out.push({ path, keyword: 'additionalProperties', message: `${p}: this member is not allowed`, unexpected: p });
            else validate(s, x, p, out);
          }
        }
        break;
      case 'required':
        if (t === 'object') {
          for (const k of s) {
            if (!has(v, k)) {
              const p = path + '/' + pointerEscape(k);
              out.push({ path, keyword: 'required', message: `${p}: this member is required`, missing: p });
            }
          }
        }
        break;
      case 'items':
        if (t === 'array') v.forEach((x, i) => validate(s, x, path + '/' + i, out));
        break;
      default:
        break; // annotations ($schema, description, x-sensitive, ...)
    }
  }
  return out;
}

// Keep only the members an object schema lists, recursively.
export function project(schema, v) {
  if (!schema || typeof schema !== 'object' || v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  if (!schema.properties) return v;
  const o = {};
  for (const [k, sub] of Object.entries(schema.properties)) {
    if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = project(sub, v[k]);
  }
  return o;
}
