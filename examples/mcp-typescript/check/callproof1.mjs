// The pipeline of src/pipeline.ts behind callproof/1 (JSON.parse and nothing else as the decoder), so that
// `callproof conform --executor "node examples/mcp-typescript/check/callproof1.mjs"` shows the port of
// examples/python is faithful: every scenario whose point is not decoding passes (measured: 34 of the 38 in auth/,
// business/, deadline/, downstream/, idempotency/, internal/; 2 crash scenarios expected-fail without a durable
// store, store_outage skipped, auth/identity_in_arguments fails on its unknown field). Not part of the MCP server.
import readline from "node:readline";
import { Executor, Refusal } from "../dist/pipeline.js";
let executor;
const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", async (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    if (msg.protocol !== "callproof/1") {
      out({ type: "error", message: `protocol ${JSON.stringify(msg.protocol)} is not supported` });
      process.exit(1);
    }
    executor = new Executor(msg.catalog, msg.downstream_url);
    out({ type: "capabilities", protocol: "callproof/1", name: "ts-pipeline", version: "0",
      tools: msg.catalog.map((e) => e.name).sort(), features: [] });
    return;
  }
  const received = performance.now();
  let args;
  try {
    args = "raw" in msg.call.arguments ? JSON.parse(msg.call.arguments.raw) : msg.call.arguments.value;
  } catch { args = undefined; }
  const call = { call_id: msg.call.call_id, business_request_id: msg.business_request_id, attempt: msg.attempt, budget_ms: msg.budget_ms };
  let envelope;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    envelope = { ok: false, error: new Refusal("invalid_json", "not an object").body(), meta: { request_id: "req_x", call_id: call.call_id, attempt: call.attempt, replayed: false } };
  } else {
    envelope = await executor.execute(msg.call.name, args, msg.auth, call, received);
  }
  out({ type: "result", id: msg.id, envelope });
});
