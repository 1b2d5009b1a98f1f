//! callproof's reference tool executor. Start here.
//!
//! An AI agent's model emits a tool name and JSON arguments; this crate turns them into at most one real side
//! effect and a stable envelope. [`Executor::execute`] is the whole pipeline, one stage per module, in order:
//!
//! | stage | module | rule |
//! |---|---|---|
//! | 1. decode | [`decode`] | strict JSON, no duplicate keys, bounded size and depth, exact tool name, schema with no coercion, canonical hash |
//! | 2. authorize | [`authorize`] | identity, tool, scope, approval bound to the arguments, resource ownership via [`resource`] |
//! | 3. claim idempotency | [`idempotency`], [`store`] | one key per business operation; compare-and-set state machine; [`reconcile`] unknown outcomes |
//! | 4. business rules | [`business`] | the tool's own rules, after ownership and after the claim |
//! | 5. bound by deadline | [`deadline`] | one absolute deadline per call |
//! | 6. call the tool | [`tool`], [`outcome`] | a failure says which side of the send line it is on |
//! | 7. validate output | [`output`] | a result that breaks its contract is withheld |
//! | 8. record | [`store`], [`audit`] | the final state by compare-and-set; one audit record per call |
//! | 9. envelope | [`envelope`], [`error`] | one shape; codes, flags and resolutions from one table |
//!
//! The conformance app every executor under test implements lives in [`app`]. Around the pipeline: [`batch`] orders the parallel calls of one model turn, [`mapping`] writes envelopes
//! back as MCP, OpenAI and Anthropic tool results, [`mcp`] answers MCP's JSON-RPC messages for both of the binary's
//! MCP transports, [`lint`] checks schemas against strict mode, [`lines`] reads the
//! bounded JSON lines of the callproof/1 protocol and [`protocol`] defines its messages, for the `--stdio` binary
//! and the harness alike.
//!
//! Ports (traits) for faults and variants: [`clock::Clock`], [`store::Store`], [`resource::Resources`],
//! [`audit::AuditSink`], [`tool::Tool`]. Pure stages are swappable function pointers in [`Stages`]; an
//! [`app::Variant`] assembles the conformance app from stages and port wrappers, and the known-bad executors in
//! `mutants` (behind the cargo feature `mutants`) are one-line swaps of either.

pub mod app;
pub mod audit;
pub mod auth;
pub mod authorize;
pub mod batch;
pub mod business;
pub mod canonical;
pub mod clock;
pub mod deadline;
pub mod decode;
pub mod envelope;
pub mod error;
mod executor;
pub mod idempotency;
pub mod lines;
pub mod lint;
pub mod mapping;
pub mod mcp;
#[cfg(feature = "mutants")]
pub mod mutants;
pub mod outcome;
pub mod output;
pub mod protocol;
pub mod reconcile;
pub mod registry;
pub mod request;
pub mod resource;
mod run;
pub mod store;
pub mod task;
pub mod tool;

pub use auth::{Approval, AuthContext, Identity};
pub use envelope::{Envelope, Meta};
pub use error::{ErrorBody, ErrorCode};
pub use executor::{Builder, Config, ConfigError, Executor, Stages};
pub use registry::Tools;
pub use request::{Arguments, Request, ToolCall};
pub use tool::{Risk, Tool, ToolSpec};
