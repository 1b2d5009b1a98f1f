//! The `Subject` port: the executor under test, as the harness sees it.
//!
//! Rule enforced here: the harness hands a subject the model's call plus the trusted context and gets the
//! envelope back as JSON; it never relies on a subject's Rust types, so executors in other languages fit
//! behind the same trait. Each scenario starts a fresh subject against a fresh downstream.

use crate::sim::SimulatedDownstream;
use crate::world::World;
use async_trait::async_trait;
use callproof_executor::app::{Downstream, Variant};
use callproof_executor::clock::{Clock, SystemClock};
use callproof_executor::idempotency::Record;
use callproof_executor::mutants::Mutant;
use callproof_executor::store::{Forward, MemoryStore, Store, StoreError};
use callproof_executor::{AuthContext, Config, Executor, Request, ToolCall};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// One call as the harness submits it.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectCall {
    /// The model's call.
    pub call: ToolCall,
    /// The trusted context.
    pub auth: AuthContext,
    /// The business request id.
    pub business_request_id: Option<String>,
    /// Attempt number.
    pub attempt: u32,
    /// Time budget.
    pub budget: Duration,
}

impl SubjectCall {
    /// The executor's request for this call (the executor assigns its own request id).
    pub fn into_request(self) -> Request {
        Request {
            call: self.call,
            auth: self.auth,
            business_request_id: self.business_request_id,
            attempt: self.attempt,
            budget: self.budget,
            request_id: None,
            trace_id: None,
        }
    }
}

/// What a subject answered one call with: the envelope as JSON, and, only from the MCP subject, the transport
/// refusal it stands for (docs/mcp.md, "Answers that are not envelopes").
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The envelope (or whatever came back that is not one).
    pub value: Value,
    /// Set when `value` is the envelope the harness built for a refusal the transport carried.
    pub refusal: Option<crate::transcript::Refusal>,
    /// Whether the harness wrote `value`'s `meta` (an envelope it built for a JSON-RPC error or an HTTP status
    /// that carried none), so nothing in it is the subject's word.
    pub meta_by_harness: bool,
}

impl From<Value> for Reply {
    fn from(value: Value) -> Reply {
        Reply { value, refusal: None, meta_by_harness: false }
    }
}

impl Reply {
    /// An envelope the harness built, `meta` and all, for an answer that carried none.
    pub(crate) fn built(value: Value, refusal: Option<crate::transcript::Refusal>) -> Reply {
        Reply { value, refusal, meta_by_harness: true }
    }
}

/// A subject that failed as a process or protocol peer (not as an executor: those failures are envelopes).
/// Every variant means the executor, not the scenario or the options, is at fault: `conform` exits 3.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectError {
    /// The executor process could not be started at all (no such program, no permission).
    #[error("cannot start the executor `{command}`: {why}")]
    Spawn {
        /// The command, its words quoted where they need it ([`crate::shell::join`]).
        command: String,
        /// The operating system's reason.
        why: String,
    },
    /// The process started but did not answer `hello` with capabilities of this protocol.
    #[error("the executor `{command}` failed to start: {why}{}{}", exited_note(exited), tail_note(stderr_tail))]
    Handshake {
        /// The command.
        command: String,
        /// What it did instead.
        why: String,
        /// How it ended, when it had ended.
        exited: Option<ExitStatus>,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The process said nothing within a bound: no capabilities in time after `hello`, or no answer to a
    /// request within its budget plus the harness's margin.
    #[error("{}{}", silence(command, awaited), tail_note(stderr_tail))]
    Silent {
        /// The command.
        command: String,
        /// What it did not send.
        awaited: Awaited,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The process wrote what this protocol does not allow: a line that is not a message, an answer to an
    /// id no request has, an `error` message, a message out of place.
    #[error("the executor broke the protocol: {why}{}{}", exited_note(exited), tail_note(stderr_tail))]
    ProtocolBreak {
        /// What it wrote, and why that breaks the protocol.
        why: String,
        /// How it ended, when it had ended.
        exited: Option<ExitStatus>,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The process closed its stdout (it exited or crashed) while the harness still needed it.
    #[error(
        "the executor broke the protocol: it closed its stdout (it exited or crashed){}{}",
        exited_note(status),
        tail_note(stderr_tail)
    )]
    Exited {
        /// Its exit status, when it was seen.
        status: Option<ExitStatus>,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The subject offers no control a scenario needs (a subject fault, running without sockets).
    #[error("{0}")]
    Unsupported(String),
    /// An in-process subject could not be assembled (its configuration is wrong).
    #[error("the subject could not be assembled: {0}")]
    Assembly(String),
    /// The harness's mocked downstream could not stop or start listening on its port for a `connection_refused`
    /// or `body_in_two_parts` step (a fault of the machine, not of the subject).
    #[error("the mocked downstream could not close or reopen its listener on {address}: {why}")]
    DownstreamLost {
        /// The address it listened on.
        address: String,
        /// The operating system's reason.
        why: String,
    },
}

/// What a silent executor did not send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Awaited {
    /// Its capabilities, within the start timeout after `hello`.
    Capabilities {
        /// The start timeout.
        timeout: Duration,
    },
    /// The answer to one request, within the request's budget plus the harness's margin.
    Answer {
        /// The request id.
        request: String,
        /// The call's budget.
        budget: Duration,
        /// The margin past it.
        margin: Duration,
    },
}

fn silence(command: &str, awaited: &Awaited) -> String {
    match awaited {
        Awaited::Capabilities { timeout } => {
            format!("the executor `{command}` sent no capabilities within {} ms of hello", timeout.as_millis())
        }
        Awaited::Answer { request, budget, margin } => format!(
            "the executor broke the protocol: no answer to request {request} within its budget of {} ms plus {} ms",
            budget.as_millis(),
            margin.as_millis()
        ),
    }
}

fn exited_note(status: &Option<ExitStatus>) -> String {
    status.map(|status| format!(" (it exited: {status})")).unwrap_or_default()
}

fn tail_note(tail: &[String]) -> String {
    if tail.is_empty() {
        " (its stderr is empty)".to_owned()
    } else {
        let lines: Vec<String> = tail.iter().map(|line| format!("  | {line}")).collect();
        format!("; the tail of its stderr:\n{}", lines.join("\n"))
    }
}

/// An executor under test.
#[async_trait]
pub trait Subject: Send + Sync {
    /// Executes one call; the envelope as JSON.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject broke (crashed, broke the protocol), not when the call failed.
    async fn execute(&self, call: SubjectCall) -> Result<Value, SubjectError>;

    /// Executes one call; the envelope, and the transport refusal it stands for when it is one. Only a
    /// subject whose transport can refuse outside an envelope (MCP) overrides this.
    ///
    /// # Errors
    /// As [`Subject::execute`].
    async fn answer(&self, call: SubjectCall) -> Result<Reply, SubjectError> {
        self.execute(call).await.map(Reply::from)
    }

    /// The idempotency records of these keys, when the subject lets the harness look (in-process only).
    async fn records(&self, _keys: &[String]) -> Option<Vec<Record>> {
        None
    }

    /// What the subject sent its client beside the answers, oldest first and bounded: an MCP server's
    /// notifications. None for a subject that has no such channel.
    async fn notices(&self) -> Vec<Value> {
        Vec::new()
    }

    /// The credentials the harness gave the subject with its calls (an MCP server's bearer tokens over HTTP),
    /// which no answer or notification may carry back. None for a subject called without any.
    async fn credentials(&self) -> Vec<String> {
        Vec::new()
    }

    /// Switches a fault on the subject itself on (`true`) or off (`false`).
    ///
    /// # Errors
    /// [`SubjectError`] when the subject offers no control for this fault, or cannot come back after it.
    async fn inject(&self, fault: SubjectFault, on: bool) -> Result<(), SubjectError> {
        match fault {
            // An in-process subject killed mid-call has nothing to kill or restart: its calls were dropped and
            // its store survived.
            SubjectFault::Kill => Ok(()),
            // An in-process subject shares the harness's process, which cannot be stopped: the call simply
            // goes on (the properties the pause scenarios judge hold either way).
            SubjectFault::Pause(_) => Ok(()),
            // An in-process subject reads no input: the call simply goes on.
            SubjectFault::EndInput => Ok(()),
            SubjectFault::StoreOutage if !on => Ok(()),
            SubjectFault::StoreOutage => {
                Err(SubjectError::Unsupported(format!("this subject cannot make its store fail ({fault})")))
            }
        }
    }

    /// Stops the subject.
    async fn stop(&self) {}

    /// Starts another process of this executor with a `hello` in `protocol`, reads what it answers and stops
    /// it; the subject itself is untouched (in process: what its `--stdio` binary would answer). `None` when the
    /// subject is not started with a `hello` (an MCP server).
    async fn hello(&self, _protocol: &str) -> Option<Result<crate::transcript::HelloAnswer, SubjectError>> {
        None
    }
}

/// A fault that acts on the subject itself rather than on a downstream request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubjectFault {
    /// The subject's idempotency store fails every operation while the fault is on.
    StoreOutage,
    /// The subject is killed (on) and brought back on the same store (off). A process gets SIGKILL and is
    /// restarted with the same session; an in-process subject's calls in flight were dropped and its store
    /// survives, so there is nothing to do.
    Kill,
    /// The subject's process is stopped (SIGSTOP) for this long and then resumed (SIGCONT); switched on only
    /// (it ends by itself). An in-process subject cannot be stopped: nothing happens.
    Pause(Duration),
    /// The subject's input ends (on: a process's stdin is closed while a call is in flight, which it must still
    /// answer) and it is started again with the same session (off). An in-process subject has no input to end:
    /// nothing happens.
    EndInput,
}

impl SubjectFault {
    /// Whether the runner undoes this fault once the step is over (switches it off): a cut store is restored, an
    /// ended input gets a fresh process. A pause ends by itself; a kill is undone where it is detected.
    pub fn undone_after_step(self) -> bool {
        matches!(self, SubjectFault::StoreOutage | SubjectFault::EndInput)
    }
}

impl std::fmt::Display for SubjectFault {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            SubjectFault::StoreOutage => "store outage",
            SubjectFault::Kill => "kill",
            SubjectFault::Pause(_) => "pause",
            SubjectFault::EndInput => "end of input",
        })
    }
}

/// Whether a subject can be judged on a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Run and judge it.
    Full,
    /// Do not run it; the reason says why (e.g. a fault the subject offers no control for).
    Skip(String),
    /// Run it, but its failures are expected; the reason says why (e.g. a store that does not survive a kill).
    ExpectFailure(String),
}

/// Starts subjects, one per scenario.
#[async_trait]
pub trait SubjectFactory: Send + Sync {
    /// The subject's name in reports.
    fn name(&self) -> String;

    /// Whether subjects of this factory can be judged on `scenario` (default: [`Support::Full`]).
    async fn support(&self, _scenario: &crate::scenario::Scenario) -> Support {
        Support::Full
    }

    /// The catalog tools subjects of this factory declare (a process's capabilities, an MCP server's
    /// `tools/list`); `None` when they declare none, which counts as every tool (default: `None`). The runner
    /// leaves out corpus cases calling a catalog tool not in the list, as `support` skips scenarios calling one.
    async fn tools(&self) -> Option<Vec<String>> {
        None
    }

    /// The `annotations` of each tool its `tools/list` gives one (an MCP server's), by tool name; empty for a
    /// subject that lists none (default), so `annotations-match-risk` does not judge it.
    async fn tool_annotations(&self) -> Arc<BTreeMap<String, Value>> {
        Arc::default()
    }

    /// Starts a subject talking to the downstream at `downstream_url`.
    ///
    /// # Errors
    /// [`SubjectError`] when it cannot start.
    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError>;

    /// Starts a subject that reaches `world` directly, with `clock` for its time (simulation under paused
    /// time). `None` when the subject can only talk HTTP (out-of-process executors).
    async fn start_direct(
        &self,
        _world: Arc<World>,
        _clock: Arc<dyn Clock>,
    ) -> Option<Result<Arc<dyn Subject>, SubjectError>> {
        None
    }
}

/// The annotations of the tools of one `tools/list` page, by tool name: tools without a name or without
/// annotations give none.
pub(crate) fn listed_annotations(tools: &[Value]) -> impl Iterator<Item = (String, Value)> + '_ {
    tools.iter().filter_map(|tool| Some((tool.get("name")?.as_str()?.to_owned(), tool.get("annotations")?.clone())))
}

/// The reference executor in-process, or a known-bad [`Variant`] of it.
#[derive(Clone)]
pub struct InProcess {
    name: String,
    variant: Variant,
    config: Config,
}

impl InProcess {
    /// The reference executor with a fresh in-memory store per scenario.
    pub fn reference() -> InProcess {
        InProcess { name: "reference".to_owned(), variant: Variant::REFERENCE, config: Config::default() }
    }

    /// A known-bad executor.
    pub fn mutant(mutant: &Mutant) -> InProcess {
        InProcess { name: format!("mutant:{}", mutant.name), variant: mutant.variant, config: Config::default() }
    }

    /// Any variant, under a name of your choosing.
    pub fn variant(name: &str, variant: Variant) -> InProcess {
        InProcess { name: name.to_owned(), variant, config: Config::default() }
    }

    /// Swaps the configuration.
    #[must_use]
    pub fn with_config(mut self, config: Config) -> InProcess {
        self.config = config;
        self
    }
}

#[async_trait]
impl SubjectFactory for InProcess {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// What the reference lists over MCP (`callproof-executor --mcp`, annotations from the catalog's risk), which
    /// every variant shares: no variant changes a tool list. Built once per process.
    async fn tool_annotations(&self) -> Arc<BTreeMap<String, Value>> {
        static LISTED: std::sync::OnceLock<Arc<BTreeMap<String, Value>>> = std::sync::OnceLock::new();
        LISTED.get_or_init(|| Arc::new(listed_annotations(&callproof_executor::mcp::tool_list()).collect())).clone()
    }

    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        let downstream =
            self.variant.http_downstream(downstream_url).map_err(|error| SubjectError::Assembly(error.to_string()))?;
        self.assemble(Arc::new(downstream), Arc::new(SystemClock))
    }

    async fn start_direct(
        &self,
        world: Arc<World>,
        clock: Arc<dyn Clock>,
    ) -> Option<Result<Arc<dyn Subject>, SubjectError>> {
        Some(self.assemble(Arc::new(SimulatedDownstream::new(world)), clock))
    }
}

impl InProcess {
    fn assemble(
        &self,
        downstream: Arc<dyn Downstream>,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<dyn Subject>, SubjectError> {
        let outage = Arc::new(AtomicBool::new(false));
        let store: Arc<dyn Store> = Arc::new(OutageStore { inner: Arc::new(MemoryStore::new()), down: outage.clone() });
        let executor = self
            .variant
            .assemble(downstream, clock, store.clone(), self.config.clone())
            .map_err(|error| SubjectError::Assembly(error.to_string()))?;
        Ok(Arc::new(InProcessSubject { executor, store, outage, speaks: self.variant.speaks }))
    }
}

struct InProcessSubject {
    executor: Executor,
    store: Arc<dyn Store>,
    outage: Arc<AtomicBool>,
    /// Its variant's reading of a `hello`'s version: what its `--stdio` binary would answer.
    speaks: fn(&str) -> Result<(), String>,
}

#[async_trait]
impl Subject for InProcessSubject {
    async fn execute(&self, call: SubjectCall) -> Result<Value, SubjectError> {
        Ok(self.executor.execute(call.into_request()).await.to_json())
    }

    async fn inject(&self, fault: SubjectFault, on: bool) -> Result<(), SubjectError> {
        match fault {
            SubjectFault::StoreOutage => self.outage.store(on, Ordering::Release),
            SubjectFault::Kill | SubjectFault::Pause(_) | SubjectFault::EndInput => {}
        }
        Ok(())
    }

    async fn records(&self, keys: &[String]) -> Option<Vec<Record>> {
        let mut records = Vec::new();
        for key in keys {
            if let Ok(Some(record)) = self.store.load(key).await {
                records.push(record);
            }
        }
        Some(records)
    }

    /// What its `--stdio` binary would answer, from the same reading of the version: the capabilities it
    /// would announce, or the `error` line it would write before exiting.
    async fn hello(&self, protocol: &str) -> Option<Result<crate::transcript::HelloAnswer, SubjectError>> {
        use crate::transcript::HelloAnswer;
        Some(Ok(match (self.speaks)(protocol) {
            Ok(()) => HelloAnswer::Accepted { protocol: callproof_executor::protocol::VERSION.to_owned() },
            Err(message) => {
                HelloAnswer::Refused { line: serde_json::json!({"type": "error", "message": message}).to_string() }
            }
        }))
    }
}

/// A store that fails while `down` is set (the `store_outage` fault).
struct OutageStore {
    inner: Arc<dyn Store>,
    down: Arc<AtomicBool>,
}

impl Forward for OutageStore {
    fn inner(&self) -> &dyn Store {
        &*self.inner
    }

    fn before(&self) -> Result<(), StoreError> {
        if self.down.load(Ordering::Acquire) { Err(StoreError::Backend("injected outage".to_owned())) } else { Ok(()) }
    }
}
