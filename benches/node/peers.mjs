// The Node peers of the decode bench: ajv (a compiled Draft 2020-12 validator) and zod 4 (strict objects), on the
// same payloads and the same JSON Schemas the Rust side reads (the catalog's refund_order, the fixture's
// create_order).
//
// Each peer does the same work as the Rust decode + key: `JSON.parse` of the raw text, validation, the canonical
// form (keys sorted, no whitespace), its SHA-256 (the arguments hash) and the idempotency key, a SHA-256 over
// t_1 FF u_1 FF <tool> FF "a" <the arguments hash's 32 bytes> as `derive_key` hashes it (record format 2)
// (node:crypto). ajv compiles the schema as written (strict mode, `additionalProperties: false` is in the schemas);
// zod's schemas are built from the same JSON Schema by the small translation below (`z.strictObject`, `z.int()`),
// which covers the keywords those schemas use and refuses any other.
//
// Usage: node peers.mjs --modules DIR [--quick] [--out FILE], DIR the node_modules that `npm ci` filled from
// benches/node/package-lock.json (benches/compare.sh uses target/bench-node). Timing: process.hrtime.bigint, calls
// per repeat grown until a repeat takes 0.2 s, median of 21 repeats (5 with --quick). Writes
// {"runtime", "peers": {"ajv": {"version", "cases": {name: {"median_ns", "outcome", "hash"}}}, "ajv_details": ...,
// "zod": ...}};
// `outcome` is "ok" or "refused", computed by running the case. `ajv_details` is ajv doing a refusal's whole work
// (every error, each with path, keyword and message, and the summary text), where `ajv` stops at the first mismatch
// and reads nothing: the comparison the strict decode's refusal, which lists every violation, is judged beside.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(ROOT, "benches", "fixtures");
const KNOWN = new Set([
  "$schema", "type", "properties", "required", "additionalProperties", "items", "enum", "pattern",
  "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
]);

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const modules = option("--modules");
if (!modules) {
  console.error("usage: node peers.mjs --modules DIR [--quick] [--out FILE]");
  process.exit(2);
}
const load = createRequire(join(resolve(modules), "peers.cjs"));
const Ajv2020 = load("ajv/dist/2020").default;
const { z } = load("zod");
const repeats = process.argv.includes("--quick") ? 5 : 21;

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/** The zod schema of a JSON Schema. */
function zodOf(schema, where) {
  const unknown = Object.keys(schema).filter((keyword) => !KNOWN.has(keyword));
  if (unknown.length > 0) throw new Error(`${where}: keywords this translation does not cover: ${unknown}`);
  const kinds = Array.isArray(schema.type) ? schema.type : [schema.type];
  const branches = kinds.map((kind) => zodBranch(schema, kind, where));
  return branches.length === 1 ? branches[0] : z.union(branches);
}

function kindOf(value) {
  if (value === null) return "null";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

function zodBranch(schema, kind, where) {
  if (schema.enum) {
    const values = schema.enum.filter((value) => kindOf(value) === kind);
    return kind === "null" ? z.null() : z.enum(values);
  }
  switch (kind) {
    case "null":
      return z.null();
    case "boolean":
      return z.boolean();
    case "string": {
      let string = z.string();
      if (schema.pattern !== undefined) string = string.regex(new RegExp(schema.pattern, "u"));
      if (schema.minLength !== undefined) string = string.min(schema.minLength);
      if (schema.maxLength !== undefined) string = string.max(schema.maxLength);
      return string;
    }
    case "integer": {
      let integer = z.int();
      if (schema.minimum !== undefined) integer = integer.min(schema.minimum);
      if (schema.maximum !== undefined) integer = integer.max(schema.maximum);
      return integer;
    }
    case "array": {
      let array = z.array(zodOf(schema.items, `${where}[]`));
      if (schema.minItems !== undefined) array = array.min(schema.minItems);
      if (schema.maxItems !== undefined) array = array.max(schema.maxItems);
      return array;
    }
    case "object": {
      if (schema.additionalProperties !== false) throw new Error(`${where}: only closed objects are covered`);
      const required = new Set(schema.required ?? []);
      const shape = {};
      for (const [key, value] of Object.entries(schema.properties)) {
        const field = zodOf(value, `${where}.${key}`);
        shape[key] = required.has(key) ? field : field.optional();
      }
      return z.strictObject(shape);
    }
    default:
      throw new Error(`${where}: type ${kind} is not covered`);
  }
}

/** Canonical JSON: keys sorted, no whitespace (the payloads' keys are ASCII, where UTF-16 and byte order agree). */
function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

/** Decode + key around `validate` (the parsed value in, the accepted value or undefined out). */
function decoder(tool, validate) {
  const keyPrefix = Buffer.concat([Buffer.from("t_1\xffu_1\xff", "latin1"), Buffer.from(tool), Buffer.from("\xffa", "latin1")]);
  return (raw) => {
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
    const accepted = validate(value);
    if (accepted === undefined) return undefined;
    const text = canonical(accepted);
    const digest = createHash("sha256").update(text).digest();
    const key = createHash("sha256").update(keyPrefix).update(digest).digest("hex");
    return [digest.toString("hex"), key];
  };
}

/** What the last refusal of `ajv_details` told the model: kept where the loop cannot optimise it away. */
let lastRefusal = null;

/**
 * ajv doing the work of the strict decode's refusal: every error (`allErrors: true`), each turned into the path,
 * keyword and message a model repairs its call from, and the one-line summary beside them (`errorsText`).
 */
function withDetails(ajv, check) {
  return (value) => {
    if (check(value)) return value;
    const violations = check.errors.map((error) => ({ path: error.instancePath, keyword: error.keyword, message: error.message }));
    lastRefusal = { message: ajv.errorsText(check.errors), violations };
    return undefined;
  };
}

function peers(schema, tool) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
  const check = ajv.compile(schema);
  const ajvAll = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  const zodSchema = zodOf(schema, tool);
  return {
    ajv: decoder(tool, (value) => (check(value) ? value : undefined)),
    ajv_details: decoder(tool, withDetails(ajvAll, ajvAll.compile(schema))),
    zod: decoder(tool, (value) => {
      const result = zodSchema.safeParse(value);
      return result.success ? result.data : undefined;
    }),
  };
}

function* cases() {
  const refund = peers(readJson(join(ROOT, "scenarios", "catalog", "refund_order.json")).input_schema, "refund_order");
  const order = peers(readJson(join(FIXTURES, "create_order.schema.json")), "create_order");
  for (const file of ["refund_cases.json", "acceptance_cases.json"]) {
    for (const [name, text] of Object.entries(readJson(join(FIXTURES, file)))) yield [name, refund, text];
  }
  for (const [name, file] of [["order_4k", "create_order_4k.json"], ["order_64k", "create_order_64k.json"]]) {
    yield [name, order, readFileSync(join(FIXTURES, file), "utf8")];
  }
}

function batch(decode, raw, number) {
  const start = process.hrtime.bigint();
  for (let call = 0; call < number; call += 1) decode(raw);
  return Number(process.hrtime.bigint() - start);
}

function timed(decode, raw) {
  let number = 1;
  while (batch(decode, raw, number) < 200_000_000) number *= 2;
  const perCall = [];
  for (let repeat = 0; repeat < repeats; repeat += 1) perCall.push(batch(decode, raw, number) / number);
  perCall.sort((a, b) => a - b);
  return { median_ns: perCall[Math.floor(perCall.length / 2)], min_ns: perCall[0], repeats };
}

const results = { ajv: {}, ajv_details: {}, zod: {} };
for (const [name, decoders, raw] of cases()) {
  for (const [peer, decode] of Object.entries(decoders)) {
    const answer = decode(raw);
    const result = timed(decode, raw);
    result.outcome = answer === undefined ? "refused" : "ok";
    result.hash = answer === undefined ? null : answer[0];
    results[peer][name] = result;
    console.error(`${peer.padEnd(11)} ${name.padEnd(36)} ${(result.median_ns / 1000).toFixed(2).padStart(10)} µs  ${result.outcome}`);
  }
}

const report = {
  runtime: `Node ${process.versions.node}`,
  peers: {
    ajv: { version: `ajv ${load("ajv/package.json").version}`, cases: results.ajv },
    ajv_details: {
      version: `ajv ${load("ajv/package.json").version} (allErrors, details read)`,
      cases: results.ajv_details,
      last_refusal: lastRefusal,
    },
    zod: { version: `zod ${load("zod/package.json").version}`, cases: results.zod },
  },
};
const out = option("--out");
if (out) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
