//! callproof's conformance and fault-injection harness. Start here.
//!
//! The harness replays scenario files against an executor (the *subject*) and a mocked downstream, then
//! judges what happened: the envelopes the calls got, the requests that reached the downstream, and the
//! ledger of committed side effects.
//!
//! | module | what it is |
//! |---|---|
//! | [`scenario`] | the TOML scenario format: fixtures, auth contexts, steps, faults, expectations |
//! | [`shipped`] | the shipped scenarios, embedded in the binary; the suite a command runs |
//! | [`filter`] | `--filter`: one selection syntax over (scenario, check) pairs |
//! | [`corpus`] | the named malformed-input corpus |
//! | [`world`] | the downstream services: fixtures, ledger, faults; transport-independent |
//! | [`mock`] | the world served over loopback HTTP by wiremock |
//! | [`sim`] | the world reached directly, without sockets (fast exploration under paused time) |
//! | [`subject`] | the `Subject` port: the executor under test (the reference one in-process) |
//! | [`runner`] | replays one scenario into a [`transcript::Transcript`] |
//! | [`backlog`] | calls queued behind others: a wait for an answer starts again at each other answer |
//! | [`envelope`] | the typed view of an envelope, read once per call |
//! | [`checks`] | the invariants, each with a stable id, a level and a seed reference |
//! | [`suite`] | runs scenarios against one subject and judges each |
//! | [`timeline`] | one run as a stable text timeline (snapshots, `repro`) |
//! | [`explore`] | generated schedules checked after every step, shrunk to a scenario file on failure |
//! | [`mutation`] | runs the suite against every known-bad executor: which check catches which bug |
//! | [`protocol`] | the adapter protocol `callproof/1` (docs/protocol.md): JSON lines over stdio |
//! | [`process`] | executors as processes speaking the protocol: start, correlate, kill, restart |
//! | [`store_proxy`] | a loopback relay to an executor process's store, which `store_outage` cuts |
//! | [`shell`] | executor command lines split into words like a POSIX shell, without a shell |
//! | [`mcp`] | `callproof mcp`: the profile that tests any MCP server over stdio (docs/mcp.md) |
//! | [`conform`] | the suite against one executor, judged: statuses, baseline, the human, JSON and JUnit reports |
//! | [`partition`] | `--partition k/n`: one deterministic slice of a suite or of exploration cases |
//! | [`report`] | GitHub annotations and the self-contained HTML report with SVG sequence diagrams |
//! | [`repro`] | one scenario's timeline with failed checks marked: text, Mermaid, JSON |
//! | [`error`] | the one error type of the public boundary, and the exit code each error means |
//!
//! The `callproof` binary (`src/main.rs`, `src/cli/`) is a thin layer over these: one module per subcommand
//! parses its arguments and calls [`conform::run`], [`mutation::run`], [`explore::explore`] or
//! [`repro::reproduce`].

pub mod backlog;
pub mod checks;
pub mod conform;
pub mod corpus;
pub mod envelope;
pub mod error;
pub mod explore;
pub mod filter;
pub mod mcp;
pub mod mock;
pub mod mutation;
pub mod partition;
pub mod process;
pub mod protocol;
pub mod report;
pub mod repro;
pub mod runner;
pub mod scenario;
pub mod shell;
pub mod shipped;
pub mod sim;
pub mod store_proxy;
pub mod subject;
pub mod suite;
pub mod timeline;
pub mod transcript;
pub mod world;

pub use conform::{assert_conforms, conform_subject};
pub use error::Error;
