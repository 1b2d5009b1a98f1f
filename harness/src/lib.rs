//! callproof's conformance and fault-injection harness. Start here.
//!
//! The harness replays scenario files against an executor (the *subject*) and a mocked downstream, then
//! judges what happened: the envelopes the calls got, the requests that reached the downstream, and the
//! ledger of committed side effects.
//!
//! | module | what it is |
//! |---|---|
//! | [`scenario`] | the TOML scenario format: fixtures, auth contexts, steps, faults, expectations |
//! | [`corpus`] | the named malformed-input corpus |
//! | [`world`] | the downstream services: fixtures, ledger, faults; transport-independent |
//! | [`mock`] | the world served over loopback HTTP by wiremock |
//! | [`sim`] | the world reached directly, without sockets (fast exploration under paused time) |
//! | [`subject`] | the `Subject` port: the executor under test (the reference one in-process) |
//! | [`runner`] | replays one scenario into a [`transcript::Transcript`] |
//! | [`envelope`] | the typed view of an envelope, read once per call |
//! | [`checks`] | the invariants, each with a stable id, a level and a seed reference |
//! | [`suite`] | discovers scenarios, runs them, tallies the checks |
//! | [`report`] | human-readable output |
//! | [`timeline`] | one run as a stable text timeline (snapshots, `repro`) |
//! | [`explore`] | generated schedules checked after every step, shrunk to a scenario file on failure |
//! | [`mutation`] | runs the suite against every known-bad executor: which check catches which bug |
//! | [`protocol`] | the adapter protocol `callproof/1` (docs/protocol.md): JSON lines over stdio |
//! | [`process`] | executors as processes speaking the protocol: start, correlate, kill, restart |
//! | [`conform`] | the suite against one executor for CI: statuses, baseline, JSON and JUnit reports, exit codes |
//! | [`repro`] | one scenario's timeline with failed checks marked: text, Mermaid, JSON |

pub mod checks;
pub mod conform;
pub mod corpus;
pub mod envelope;
pub mod explore;
pub mod mock;
pub mod mutation;
pub mod process;
pub mod protocol;
pub mod report;
pub mod repro;
pub mod runner;
pub mod scenario;
pub mod sim;
pub mod subject;
pub mod suite;
pub mod timeline;
pub mod transcript;
pub mod world;

/// The malformed corpus as shipped, embedded so the harness runs anywhere.
pub const EMBEDDED_CORPUS: &str = include_str!("../../scenarios/corpus/malformed.toml");

pub use conform::{assert_conforms, conform_subject};
