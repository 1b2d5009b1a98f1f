//! `callproof mcp`: the profile for any MCP server over stdio or Streamable HTTP, without the conformance app.
//! Start here.
//!
//! | module | what it is |
//! |---|---|
//! | [`client`] | a raw JSON-RPC client over one transport (stdio or Streamable HTTP), a timeout on every wait |
//! | [`http`] | Streamable HTTP, client side: a POST per message, JSON or SSE answers, the session header |
//! | [`http_checks`] | the checks only HTTP has: error statuses, `Origin`, and with `--bearer` the 401s |
//! | [`bearer`] | `--bearer`: the token, its broken copies for `mcp-auth-invalid-token`, its redaction |
//! | [`checks`] | the profile's checks: id, level, the specification section each cites |
//! | [`lint`] | the tool-list lint: names, schemas, annotations |
//! | [`inputs`] | invalid inputs generated from a tool's own `inputSchema` |
//! | [`leak`] | error texts scanned for stack traces, file paths and secrets |
//! | `surrogate` | a server's JSON text with a lone surrogate escape (`"\ud83c"`) read, not dropped |
//! | `handshake` | the start of a profile run: the revision (or `auto`'s detection), the 2025-11-25 handshake |
//! | [`profile`] | one run: the requests in order, each answer turned into findings; the safety rule |
//! | `output` | a successful result judged: `structuredContent` mirrored in text, valid against the `outputSchema` |
//! | [`revision`] | 2025-11-25 or 2026-07-28: `--mcp-revision`, the modern `_meta` and headers, era detection |
//! | [`modern`] | the profile's 2026-07-28 checks: discovery, `_meta`, `resultType`, cache fields, HTTP headers |
//! | [`tasks`] | the 2026-07-28 Tasks extension's checks: `CreateTaskResult`, `tasks/get` polling, `tasks/cancel` |
//! | [`stream`] | what a server sends beside its answers: stray lines on stdout, progress notifications |
//! | `resources` | `resources/read` of a resource that does not exist: an error, not a result |
//! | [`report`] | statuses per check, failures with the request that shows them, human and JSON |
//! | [`remote`] | `callproof conform --mcp-http` / `--mcp-url`: the conformance app over Streamable HTTP |
//! | [`token`] | the HS256 bearer JWT per call that carries the caller's identity over HTTP |
//! | [`subject`] | `callproof conform --mcp`: the conformance app over MCP, a server as a [`crate::subject::Subject`] |
//! | [`task_calls`] | for [`subject`] and [`remote`]: the Tasks mapping (a submission declares the extension; polls and cancels are `tasks/get` and `tasks/cancel`) |
//! | [`wire`] | for [`subject`]: the `tools/call` line of one call, and how its answer is read as an envelope |
//!
//! Rule enforced here: the profile judges only what the server answered; it never needs the conformance app,
//! a downstream or a `_meta` of callproof's. docs/mcp.md (Part 2) is the contract. [`subject`] is the other
//! way in (Part 1): the conformance app's scenarios, with the server as the executor under test.

pub mod bearer;
pub mod checks;
pub mod client;
mod handshake;
pub mod http;
pub mod http_checks;
pub mod inputs;
pub mod leak;
pub mod lint;
pub mod modern;
mod output;
pub mod profile;
pub mod remote;
pub mod report;
mod resources;
pub mod revision;
pub mod stream;
pub mod subject;
mod surrogate;
pub mod task_calls;
pub mod tasks;
pub mod token;
pub mod wire;

pub use bearer::Bearer;
pub use profile::{Calls, Options, Server, run};
pub use remote::McpHttpFactory;
pub use report::Report;
pub use subject::McpFactory;
